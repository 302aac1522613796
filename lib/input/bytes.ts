// Bounded body reading for any fetch Request or Response: what comes in — a request to us, a provider's answer —
// is never buffered past its limit.

/**
 * The bytes of a request or response body, refusing anything over `maxBytes` without buffering it all:
 * a declared Content-Length over the limit is refused before reading; a stream that grows past it is cut.
 * `tooLarge` makes the error the caller's own (413 for requests, provider errors for responses…).
 */
export async function readBoundedBytes(message: Request | Response, maxBytes: number, tooLarge: () => Error): Promise<Uint8Array> {
  const declared = Number(message.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) {
    await message.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!message.body) return new Uint8Array();
  const reader = message.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
