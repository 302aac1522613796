import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { codeOf } from "@/test-support";
import { jsonDepth } from "@/lib/input/json";
import { MAX_BODY_BYTES, parseBody, readJson } from "./body";

const post = (body: BodyInit | null, headers: Record<string, string> = {}) =>
  new Request("http://x/api", { method: "POST", body, headers, duplex: "half" } as RequestInit);

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

describe("readJson refuses text no field can hold, naming the field", () => {
  async function issueOf(body: string) {
    try {
      await readJson(post(body));
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      const e = err as AppError;
      expect(e.code).toBe("invalid_input");
      expect(e.status).toBe(400);
      return (e.details.issues as { path: string; message: string; code: string }[])[0]!;
    }
    throw new Error("expected invalid_input");
  }

  it.each([
    ["a NUL in a string", '{"fields":{"title":"a\\u0000b"}}', "fields.title", /NUL/],
    ["a lone high surrogate", '{"fields":{"title":"x\\ud800"}}', "fields.title", /unpaired surrogate \(U\+D800\)/],
    ["a lone low surrogate", '{"q":"\\udc00y"}', "q", /unpaired surrogate \(U\+DC00\)/],
    ["a NUL inside an array", '{"payload":{"items":["ok","\\u0000"]}}', "payload.items.1", /NUL/],
    ["a NUL at the root", '"\\u0000"', "(root)", /NUL/],
  ])("%s in a value", async (_what, body, path, message) => {
    const issue = await issueOf(body);
    expect(issue.path).toBe(path);
    expect(issue.message).toMatch(message);
    expect(issue.code).toBe("invalid_format");
  });

  it.each([
    ["a NUL in a key", '{"fields":{"ti\\u0000tle":"x"}}', "fields.ti\\u0000tle", /NUL/],
    ["a lone surrogate in a key", '{"filter":{"\\ud83d":"x"}}', "filter.\\ud83d", /unpaired surrogate/],
    ["a NUL in a key of the root", '{"\\u0000":1}', "\\u0000", /NUL/],
  ])("%s", async (_what, body, path, message) => {
    const issue = await issueOf(body);
    expect(issue.path).toBe(path);
    expect(issue.message).toMatch(message);
    expect(issue.code).toBe("invalid_key");
  });

  it("the message names the field as zod errors do", async () => {
    await expect(readJson(post('{"fields":{"title":"a\\u0000"}}'))).rejects.toThrow(/^Invalid request body: fields\.title: contains a NUL character/);
  });

  it("accepts paired surrogates (emoji), other control characters, and `__proto__` / `constructor` keys as plain keys", async () => {
    expect(await readJson(post('{"t":"\\ud83d\\ude00 😀","c":"tab\\there"}'))).toEqual({ t: "😀 😀", c: "tab\there" });
    const parsed = (await readJson(post('{"__proto__":{"x":1},"constructor":"c"}'))) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(["__proto__", "constructor"]);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
  });

  it("parseBody checks before the schema does", async () => {
    const { z } = await import("zod");
    await expect(parseBody(post('{"name":"a\\u0000"}'), z.strictObject({ name: z.string() }))).rejects.toMatchObject({ code: "invalid_input", details: { issues: [{ path: "name" }] } });
  });
});
