// Provider-backed links: every signed field is bound, the method is part of the link, expiry is enforced, and a
// streamed body is cut off past its bound with the headers a download always carries.
import { describe, expect, it } from "vitest";
import { thrownCode } from "@/test-support";
import { bounded, liveFileResponse, safeContentType } from "./live-response";
import { LIVE_PATH, signLiveUrl, verifyLiveUrl } from "./live-urls";

const now = new Date("2026-12-01T12:00:00Z");
const parts = { method: "GET" as const, tenantId: "tnt_a", namespace: "slack", ref: "slack:acc_0123456789abcdefghij:file:F0A", principalId: "act_x", grantId: "gr_1", operation: "object.get", name: "a.png", params: { b: "2", a: "1" } };

describe("live links", () => {
  it("round-trip, with their params, and name no stored file", () => {
    const { url, expires_at } = signLiveUrl("https://rg.test", parts, now, 60);
    expect(url.startsWith(`https://rg.test${LIVE_PATH}?`)).toBe(true);
    expect(expires_at).toBe("2026-12-01T12:01:00.000Z");
    expect(verifyLiveUrl(new URL(url), "GET", now)).toMatchObject({ ...parts, expiresAt: Math.floor(now.getTime() / 1000) + 60 });
    expect(verifyLiveUrl(new URL(url), "HEAD", now).method).toBe("GET");
  });

  it.each(["t", "ns", "ref", "by", "exp", "g", "op", "name", "x", "m"])("refuse a link whose %s was changed or dropped", (key) => {
    const u = new URL(signLiveUrl("https://rg.test", parts, now, 60).url);
    const changed = new URL(u);
    changed.searchParams.set(key, key === "exp" ? "9999999999" : key === "m" ? "PUT" : key === "x" ? Buffer.from('{"a":"9"}').toString("base64url") : `${u.searchParams.get(key)}x`);
    expect(thrownCode(() => verifyLiveUrl(changed, changed.searchParams.get("m") ?? "GET", now))).toBe("bad_signature");
    const dropped = new URL(u);
    dropped.searchParams.delete(key);
    expect(thrownCode(() => verifyLiveUrl(dropped, "GET", now))).toBe("bad_signature");
  });

  it("a download link is no upload slot (and the reverse); an expired one says so", () => {
    const get = new URL(signLiveUrl("https://rg.test", parts, now, 60).url);
    const put = new URL(signLiveUrl("https://rg.test", { ...parts, method: "PUT" }, now, 60).url);
    expect(thrownCode(() => verifyLiveUrl(get, "PUT", now))).toBe("bad_signature");
    expect(thrownCode(() => verifyLiveUrl(put, "GET", now))).toBe("bad_signature");
    expect(verifyLiveUrl(put, "PUT", now).method).toBe("PUT");
    expect(thrownCode(() => verifyLiveUrl(get, "GET", new Date(now.getTime() + 61_000)))).toBe("url_expired");
  });

  it("never live longer than 15 minutes", () => {
    const { expires_at } = signLiveUrl("https://rg.test", parts, now, 86_400);
    expect(new Date(expires_at).getTime() - now.getTime()).toBe(15 * 60_000);
  });
});

describe("live responses", () => {
  const read = async (s: ReadableStream<Uint8Array>) => new Uint8Array(await new Response(s).arrayBuffer());

  it("carry the provider's type, as an attachment, never sniffed", async () => {
    const res = liveFileResponse({ contentType: "image/png", size: 3, filename: "макет 1.png", body: new Uint8Array([1, 2, 3]) }, "GET");
    expect(Object.fromEntries(res.headers)).toMatchObject({
      "content-type": "image/png",
      "content-disposition": `attachment; filename*=UTF-8''${encodeURIComponent("макет 1.png")}`,
      "x-content-type-options": "nosniff",
      "cache-control": "private, no-store",
      "content-length": "3",
    });
    expect([...new Uint8Array(await res.arrayBuffer())]).toEqual([1, 2, 3]);
    expect(liveFileResponse({ contentType: "text/html\r\nx: y", filename: "a", body: new Uint8Array() }, "GET").headers.get("content-type")).toBe("application/octet-stream");
    expect(safeContentType("text/plain; charset=utf-8")).toBe("text/plain; charset=utf-8");
    // Bytes in hand say their length even when the provider announced none, so a client can tell it got them all.
    expect(liveFileResponse({ contentType: "image/png", filename: "a", body: new Uint8Array(5) }, "GET").headers.get("content-length")).toBe("5");
  });

  it("stream chunk by chunk and stop past their bound", async () => {
    const chunks = [new Uint8Array(4), new Uint8Array(4), new Uint8Array(4)];
    const source = () => new ReadableStream<Uint8Array>({ start: (c) => (chunks.forEach((x) => c.enqueue(x)), c.close()) });
    expect((await read(bounded(source(), 12))).byteLength).toBe(12);
    await expect(read(bounded(source(), 10))).rejects.toThrow(/larger than 10 bytes/);
    await expect(read(bounded(new Uint8Array(11), 10))).rejects.toThrow(/larger than 10 bytes/);
    // A provider that sends more than it announced is cut off at what it announced.
    const res = liveFileResponse({ contentType: "image/png", size: 8, filename: "a", body: source() }, "GET");
    await expect(res.arrayBuffer()).rejects.toThrow();
  });
});
