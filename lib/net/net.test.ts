// The one way out: the private-address guard at connect time (names resolving to loopback, IPv4-mapped
// IPv6, redirects pointing inside), the size cap, the timeout, and errors that never carry the path or query.
import dns from "node:dns";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { isPrivateAddress, isPublicAddress, NetError, request, textOf, type NetRequest } from ".";

let server: Server;
let port = 0;
let hits = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    hits++;
    // /slow is held, never answered: the client's timeout ends it (and closeAllConnections, at the end).
    if (req.url?.startsWith("/slow")) return;
    if (req.url === "/trickle") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("first…");
    } else if (req.url === "/big-declared") res.writeHead(200, { "content-length": "4096" }).end("x".repeat(4096));
    else if (req.url === "/big-streamed") {
      res.writeHead(200);
      for (let i = 0; i < 8; i++) res.write("x".repeat(512));
      res.end();
    } else if (req.url === "/to-metadata") res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data" }).end();
    else if (req.url === "/to-loopback") res.writeHead(307, { location: `http://127.0.0.1:${port}/` }).end();
    else res.end(JSON.stringify({ ok: true, host: req.headers.host }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
afterEach(() => vi.restoreAllMocks());

const base = { timeoutMs: 2000, maxBytes: 1024, allowPrivate: true } satisfies Omit<NetRequest, "url">;
const local = (path: string) => `http://127.0.0.1:${port}${path}`;
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error("expected a NetError");
    },
    (e: unknown) => {
      if (e instanceof NetError) return e;
      throw e;
    },
  );

/** Resolve `name` (only) to `address`, counting lookups; everything else resolves as usual. */
function resolveAs(name: string, address: string, family: 4 | 6) {
  const real = dns.lookup.bind(dns);
  let count = 0;
  vi.spyOn(dns, "lookup").mockImplementation(((hostname: string, options: dns.LookupOptions, cb: (...a: unknown[]) => void) => {
    if (hostname !== name) return real(hostname, options, cb as never);
    count++;
    const one = { address, family };
    setImmediate(() => (options.all ? cb(null, [one]) : cb(null, address, family)));
  }) as never);
  return { lookups: () => count };
}

describe("private addresses", () => {
  it.each(["127.0.0.1", "127.9.9.9", "10.1.2.3", "172.20.0.1", "192.168.0.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "::1", "::", "fd00::1", "fe80::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:10.0.0.1", "::ffff:a00:1", "64:ff9b::a00:1", "not an ip",
    // IPv6 forms that carry a private IPv4 address, and private IPv6 ranges beyond the obvious ones.
    "::7f00:1", "::127.0.0.1", "::ffff:0:7f00:1", "::ffff:0:127.0.0.1", "2002:7f00:1::", "2002:a9fe:a9fe::1", "64:ff9b::a9fe:a9fe",
    "64:ff9b:1::808:808", "fec0::1", "100::1", "2001:db8::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "fe80::1%lo"])(
    "%s is private",
    (ip) => {
      expect(isPrivateAddress(ip)).toBe(true);
      expect(isPublicAddress(ip)).toBe(false);
    },
  );
  it.each(["8.8.8.8", "93.184.216.34", "2606:4700::1111", "::ffff:8.8.8.8", "::ffff:808:808", "64:ff9b::808:808", "2002:808:808::1", "2a00:1450:4001:82a::200e"])("%s is public", (ip) => expect(isPrivateAddress(ip)).toBe(false));
});

describe("the guard, at connect time", () => {
  it("refuses a private IP literal unless the policy allows that host, before connecting", async () => {
    const before = hits;
    expect(await failure(request({ ...base, url: local("/"), allowPrivate: false }))).toMatchObject({ reason: "blocked_address", host: `127.0.0.1:${port}` });
    expect(await failure(request({ ...base, url: local("/"), allowPrivate: (h) => h === "10.0.0.1" }))).toMatchObject({ reason: "blocked_address" });
    expect(hits).toBe(before);
    expect((await request({ ...base, url: local("/"), allowPrivate: (h) => h === "127.0.0.1" })).status).toBe(200);
  });

  it("refuses IPv4-mapped IPv6 literals of private addresses", async () => {
    for (const literal of ["[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[::ffff:169.254.169.254]"]) {
      expect(await failure(request({ ...base, url: `http://${literal}:${port}/`, allowPrivate: false })), literal).toMatchObject({ reason: "blocked_address" });
    }
  });

  it("refuses a name that resolves to 127.0.0.1 when loopback is not allowed, and resolves it only once", async () => {
    const dnsSpy = resolveAs("innocent.example", "127.0.0.1", 4);
    const before = hits;
    const err = await failure(request({ ...base, url: `http://innocent.example:${port}/`, allowPrivate: false }));
    expect(err).toMatchObject({ reason: "blocked_address" });
    expect(err.message).toMatch(/private network address/);
    expect(hits).toBe(before);
    // Allowed by name, the socket connects to exactly the address the guard saw: one lookup, no second one.
    const ok = await request({ ...base, url: `http://innocent.example:${port}/`, allowPrivate: (h) => h === "innocent.example" });
    expect(JSON.parse(textOf(ok))).toMatchObject({ ok: true, host: `innocent.example:${port}` });
    expect(dnsSpy.lookups()).toBe(2);
  });

  it("refuses a name that resolves to an IPv4-mapped loopback address", async () => {
    resolveAs("mapped.example", "::ffff:127.0.0.1", 6);
    expect(await failure(request({ ...base, url: `http://mapped.example:${port}/`, allowPrivate: false }))).toMatchObject({ reason: "blocked_address" });
  });

  it("refuses localhost itself when loopback is not allowed", async () => {
    expect(await failure(request({ ...base, url: `http://localhost:${port}/`, allowPrivate: false }))).toMatchObject({ reason: "blocked_address" });
  });

  it("never follows a redirect, to a private address or anywhere: it is the answer, or refused", async () => {
    const res = await request({ ...base, url: local("/to-metadata") });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe("http://169.254.169.254/latest/meta-data");
    expect(await failure(request({ ...base, url: local("/to-loopback"), redirect: "refuse" }))).toMatchObject({ reason: "redirect" });
    const before = hits;
    await request({ ...base, url: local("/to-loopback") });
    expect(hits).toBe(before + 1);
  });

  it("refuses other schemes, credentials in the URL and headers Node cannot send, sending nothing", async () => {
    const before = hits;
    expect(await failure(request({ ...base, url: "file:///etc/passwd" }))).toMatchObject({ reason: "bad_url" });
    expect(await failure(request({ ...base, url: `http://user:pw@127.0.0.1:${port}/` }))).toMatchObject({ reason: "bad_url" });
    expect(await failure(request({ ...base, url: local("/"), headers: { "x-bad": "a\r\nb" } }))).toMatchObject({ reason: "bad_header" });
    expect(hits).toBe(before);
  });
});

describe("bounds", () => {
  it("caps the answer's size, declared or streamed", async () => {
    expect(await failure(request({ ...base, url: local("/big-declared") }))).toMatchObject({ reason: "too_large" });
    expect(await failure(request({ ...base, url: local("/big-streamed") }))).toMatchObject({ reason: "too_large" });
    expect((await request({ ...base, url: local("/big-streamed"), maxBytes: 8192 })).body.byteLength).toBe(4096);
  });

  it("times out whether the answer never starts or never ends", async () => {
    expect(await failure(request({ ...base, url: local("/slow"), timeoutMs: 150 }))).toMatchObject({ reason: "timeout" });
    expect(await failure(request({ ...base, url: local("/trickle"), timeoutMs: 150 }))).toMatchObject({ reason: "timeout" });
  });

  it("says when nothing listens, with the system's code", async () => {
    expect(await failure(request({ ...base, url: "http://127.0.0.1:1/" }))).toMatchObject({ reason: "unreachable", code: "ECONNREFUSED" });
  });

  it("names the host in errors, never the path, query or headers", async () => {
    const err = await failure(request({ ...base, url: local("/slow?api_key=sk-secret-123"), headers: { authorization: "Bearer tok-secret" }, timeoutMs: 100 }));
    expect(err.message).toContain(`127.0.0.1:${port}`);
    expect(err.message).not.toMatch(/sk-secret|tok-secret|slow/);
  });
});
