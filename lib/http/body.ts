// Reading request bodies: size-limited before parsing, depth-limited, free of text no field can hold (NUL, lone
// surrogates: lib/http/text.ts), then validated with zod.
import type { z } from "zod";
import { AppError, parseWith } from "@/lib/errors";
import { assertCleanText, MAX_JSON_DEPTH } from "./text";

export { MAX_JSON_DEPTH };
export const MAX_BODY_BYTES = 1024 * 1024;

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

/** Read the raw request body, refusing (413) anything over `maxBytes` without buffering it all. */
export function readBodyBytes(req: Request, maxBytes = MAX_BODY_BYTES): Promise<Uint8Array> {
  return readBoundedBytes(req, maxBytes, () => tooLarge(maxBytes));
}

const tooLarge = (maxBytes: number) =>
  new AppError("payload_too_large", `The request body is larger than ${maxBytes} bytes.`, { details: { max_bytes: maxBytes } });

/** Nesting depth of a JSON text, scanned without parsing (so a hostile document cannot exhaust the stack). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
}

/** Parse JSON text with a depth bound; an empty body is `{}`. */
export function parseJsonText(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  if (text.trim() === "") return {};
  if (jsonDepth(text) > maxDepth) {
    throw new AppError("invalid_input", `The JSON body is nested deeper than ${maxDepth} levels.`, { details: { max_depth: maxDepth } });
  }
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new AppError("invalid_input", `Malformed JSON: ${(cause as Error).message}`, { cause });
  }
}

/**
 * A JSON request body: at most `maxBytes`, UTF-8, nested at most MAX_JSON_DEPTH deep, and with no NUL or lone
 * surrogate in any string or key (`invalid_input` naming the field).
 */
export async function readJson(req: Request, maxBytes = MAX_BODY_BYTES): Promise<unknown> {
  const bytes = await readBodyBytes(req, maxBytes);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (cause) {
    throw new AppError("invalid_input", "The request body is not valid UTF-8.", { cause });
  }
  const body = parseJsonText(text);
  assertCleanText(body, "request body");
  return body;
}

/** Read, parse and validate a JSON body against `schema`. */
export async function parseBody<S extends z.ZodType>(req: Request, schema: S, maxBytes?: number): Promise<z.infer<S>> {
  return parseWith(schema, await readJson(req, maxBytes), "request body");
}
