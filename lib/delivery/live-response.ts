// A provider-backed file as an HTTP response: streamed through a byte counter that ends the stream with an
// error past MAX_LIVE_BYTES (or past the size the provider announced), the provider's content type, always
// an attachment, never sniffed, never cached.
import type { StreamedFile } from "@/lib/realms/contract";
import { MAX_LIVE_BYTES } from "./live-urls";

/** A content type as the provider said it, or octet-stream when it is not a plain `type/subtype[; params]`. */
export function safeContentType(v: string): string {
  const t = v.trim();
  return /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+(\s*;\s*[a-z0-9_-]+=("[^"\r\n]*"|[^;\s"]+))*$/i.test(t) && t.length <= 200 ? t : "application/octet-stream";
}

/** `body`, ending with an error once more than `limit` bytes went through. */
export function bounded(body: ReadableStream<Uint8Array> | Uint8Array, limit: number): ReadableStream<Uint8Array> {
  if (body instanceof Uint8Array) {
    return new ReadableStream({
      start(c) {
        if (body.byteLength > limit) c.error(new Error(`file larger than ${limit} bytes`));
        else {
          c.enqueue(body);
          c.close();
        }
      },
    });
  }
  let seen = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, c) {
        seen += chunk.byteLength;
        if (seen > limit) c.error(new Error(`file larger than ${limit} bytes`));
        else c.enqueue(chunk);
      },
    }),
  );
}

export function liveFileResponse(file: StreamedFile, method: string): Response {
  const limit = Math.min(file.size ?? MAX_LIVE_BYTES, MAX_LIVE_BYTES);
  const headers: Record<string, string> = {
    "content-type": safeContentType(file.contentType),
    "content-disposition": `attachment; filename*=UTF-8''${encodeURIComponent(file.filename || "file")}`,
    "cache-control": "private, no-store",
    "x-content-type-options": "nosniff",
  };
  // Bytes in hand say their own length; a stream, what the provider announced.
  const length = file.body instanceof Uint8Array ? file.body.byteLength : file.size;
  if (length !== undefined && length <= limit) headers["content-length"] = String(length);
  return new Response(method === "HEAD" ? null : bounded(file.body, limit), { headers });
}
