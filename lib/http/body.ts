// Reading request bodies: size-limited before parsing (lib/input/bytes.ts), depth-limited (lib/input/json.ts), free
// of text no field can hold (NUL, lone surrogates: lib/input/text.ts), then validated with zod.
import type { z } from "zod";
import { AppError, parseWith } from "@/lib/errors";
import { readBoundedBytes } from "@/lib/input/bytes";
import { parseJsonText } from "@/lib/input/json";
import { assertCleanText } from "@/lib/input/text";

export const MAX_BODY_BYTES = 1024 * 1024;

/** Read the raw request body, refusing (413) anything over `maxBytes` without buffering it all. */
export function readBodyBytes(req: Request, maxBytes = MAX_BODY_BYTES): Promise<Uint8Array> {
  return readBoundedBytes(req, maxBytes, () => tooLarge(maxBytes));
}

const tooLarge = (maxBytes: number) =>
  new AppError("payload_too_large", `The request body is larger than ${maxBytes} bytes.`, { details: { max_bytes: maxBytes } });

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
