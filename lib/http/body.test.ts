import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { jsonDepth, MAX_BODY_BYTES, readJson } from "./body";

const post = (body: BodyInit | null, headers: Record<string, string> = {}) =>
  new Request("http://x/api", { method: "POST", body, headers, duplex: "half" } as RequestInit);

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "ok";
  } catch (err) {
    return err instanceof AppError ? err.code : "other";
  }
}

describe("readJson", () => {
  it("parses a JSON object, and an empty body as {}", async () => {
    expect(await readJson(post('{"a":[1,2]}'))).toEqual({ a: [1, 2] });
    expect(await readJson(post(""))).toEqual({});
  });

  it("refuses malformed JSON with invalid_input", async () => {
    expect(await codeOf(readJson(post("{bad")))).toBe("invalid_input");
  });

  it("refuses a declared oversize body before reading it", async () => {
    expect(await codeOf(readJson(post("{}", { "content-length": String(MAX_BODY_BYTES + 1) })))).toBe("payload_too_large");
  });

  it("refuses an oversize streamed body that declares no length", async () => {
    const chunk = new Uint8Array(64 * 1024).fill(32);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent > MAX_BODY_BYTES * 2) return c.close();
        sent += chunk.byteLength;
        c.enqueue(chunk);
      },
    });
    expect(await codeOf(readJson(post(stream)))).toBe("payload_too_large");
    expect(sent).toBeLessThan(MAX_BODY_BYTES * 2); // stopped early
  });

  it("refuses deeply nested JSON without recursing into it", async () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    expect(await codeOf(readJson(post(deep)))).toBe("invalid_input");
  });

  it("refuses bytes that are not UTF-8", async () => {
    expect(await codeOf(readJson(post(new Uint8Array([0x7b, 0xff, 0x7d]))))).toBe("invalid_input");
  });
});

describe("jsonDepth", () => {
  it.each([
    ["{}", 1],
    ['{"a":{"b":[1]}}', 3],
    ['{"a":"[[[[[["}', 1],
    ['["\\"[["]', 1],
  ])("%s → %i", (text, depth) => expect(jsonDepth(text)).toBe(depth));
});
