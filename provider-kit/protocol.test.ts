// The signature text and scheme: fixed vectors, so a change to the signed text is caught here (Realmgate and
// every provider must compute the same bytes).
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { bodyDigest, HEADER_REGISTRATION, HEADER_SIGNATURE, HEADER_TIMESTAMP, OPERATIONS, PROTOCOL, sign, signatureBase, signedHeaders } from "./protocol";

describe("protocol", () => {
  it("names the protocol and its thirteen operations", () => {
    expect(PROTOCOL).toBe("realmgate.provider/1");
    expect(OPERATIONS).toEqual(["about", "list", "search", "get", "action", "upsert", "delete", "host_file", "resolve_selector", "describe_refs", "lineage", "stream_file", "receive_upload"]);
  });

  it("digests the body bytes (a string as UTF-8)", () => {
    expect(bodyDigest("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(bodyDigest("é")).toBe(bodyDigest(new Uint8Array([0xc3, 0xa9])));
  });

  it("signs the doc's exact text", () => {
    const base = signatureBase("post", "/freight/ops/get", 1796119200, '{"a":1}');
    expect(base).toBe(`realmgate-v1\nPOST\n/freight/ops/get\n1796119200\n${bodyDigest('{"a":1}')}`);
    const expected = createHmac("sha256", "rgs_secret").update(base).digest("hex");
    expect(sign("rgs_secret", "POST", "/freight/ops/get", 1796119200, '{"a":1}')).toBe(`v1=${expected}`);
  });

  it("builds the headers of a signed call at the given time", () => {
    const now = new Date("2026-12-01T10:00:00.900Z");
    const h = signedHeaders({ secret: "rgs_s", registrationId: "rrp_1", method: "POST", path: "/ops/about", body: "{}", now });
    expect(h).toEqual({
      "content-type": "application/json",
      [HEADER_REGISTRATION]: "rrp_1",
      [HEADER_TIMESTAMP]: String(Math.floor(now.getTime() / 1000)),
      [HEADER_SIGNATURE]: sign("rgs_s", "POST", "/ops/about", Math.floor(now.getTime() / 1000), "{}"),
    });
  });
});
