import { z } from "zod";
import { MAX_FILE_BYTES } from "@/lib/delivery/files";
import { AppError } from "@/lib/errors";
import { defineTool } from "../define";
import { approvalId, idempotencyKey, namespace } from "../inputs";

export const hostFile = defineTool({
  name: "host_file",
  input: z.strictObject({
    namespace,
    name: z.string().min(1).max(200),
    content_type: z.string().min(3).max(100).regex(/^[\w.+-]+\/[\w.+-]+$/),
    content_base64: z.string().max(700_000).regex(/^[A-Za-z0-9+/]*={0,2}$/, "must be base64"),
    idempotency_key: idempotencyKey,
    approval_id: approvalId,
  }),
  description: "Store a file (base64) in a realm; returns its ref and a short-lived URL.",
  // Only adds a file; each call adds another.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  target: "namespace",
  operation: "file.host",
  idempotent: true,
  prepare(p) {
    if (!p.manifest.delivery.files) throw new AppError("invalid_input", `${p.manifest.namespace} does not store files.`);
  },
  async run(r, s) {
    const bytes = Buffer.from(s.content_base64, "base64");
    if (bytes.byteLength > MAX_FILE_BYTES) throw new AppError("payload_too_large", `Files are limited to ${MAX_FILE_BYTES} bytes.`, { details: { max_bytes: MAX_FILE_BYTES } });
    const hosted = await r.realm.adapter.hostFile(r.ctx, { name: s.name, contentType: s.content_type, bytes: new Uint8Array(bytes) });
    return { ...hosted, ...(await r.ctx.delivery.fileUrl(hosted.file_id, { name: s.name })) };
  },
});
