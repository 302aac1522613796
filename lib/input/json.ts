// JSON text from outside (a request body, an MCP message), parsed with a depth bound so a hostile document cannot
// exhaust the stack.
import { AppError } from "@/lib/errors";
import { MAX_JSON_DEPTH } from "./text";

export { MAX_JSON_DEPTH };

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
