// Slack files through Realmgate: `streamFile` fetches a file's current bytes with the workspace's token when a
// signed link (lib/delivery/live-urls.ts) is redeemed — after gate one and, here, gate two (the workspace still
// connected, its slack:files:read claim) — so neither the token nor the bytes ever enter a tool result.
import { AppError } from "@/lib/errors";
import { MAX_LIVE_BYTES } from "@/lib/delivery/port";
import type { RealmContext, StreamedFile } from "@/lib/realms/contract";
import { FILE_READ_CLAIMS } from "./manifest";
import { fileInfo } from "./read";
import { parseSlackRef } from "./refs";
import { downloadFile, open } from "./wire";

export async function streamFile(ctx: RealmContext, { ref }: { ref: string }): Promise<StreamedFile> {
  const r = parseSlackRef(ref);
  if (r.type !== "file") throw new AppError("invalid_input", "Only slack.file refs have bytes.", { details: { ref } });
  const s = await open(ctx, "object.get", FILE_READ_CLAIMS, { pinned: r.accountId });
  const f = await fileInfo(s, r.file);
  if ((f.size ?? 0) > MAX_LIVE_BYTES) throw new AppError("payload_too_large", `This file is larger than ${MAX_LIVE_BYTES} bytes; open it in Slack.`, { details: { max_bytes: MAX_LIVE_BYTES, size: f.size } });
  const url = f.url_private_download ?? f.url_private;
  if (!url || f.mode === "external" || f.mode === "tombstone") throw new AppError("not_found", "Slack keeps no bytes for this file (it is external or deleted).");
  const got = await downloadFile(ctx, s, url, f.mimetype ?? null);
  return { contentType: f.mimetype || got.contentType || "application/octet-stream", size: got.bytes.byteLength, filename: f.name ?? f.title ?? f.id, body: got.bytes };
}
