// netFetch: lib/net with fetch's shape, for libraries that take a fetch (jose's JWKS, Auth.js's OpenID Connect
// calls). The guard, the bounds and the redirect rule are request's; only the shape changes.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NetError, netFetch } from ".";

let server: Server;
let port = 0;
const held: IncomingMessage[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/hold") return void held.push(req); // never answers: the client's timeout must end it
    if (req.url === "/moved") return void res.writeHead(302, { location: "/elsewhere" }).end();
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      res.setHeader("set-cookie", ["a=1", "b=2"]);
      res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ method: req.method, type: req.headers["content-type"] ?? null, body }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));

const local = (path: string) => `http://127.0.0.1:${port}${path}`;
const open = netFetch({ timeoutMs: 2000, maxBytes: 4096, allowPrivate: true });

describe("netFetch", () => {
  it("sends the method, headers and a form body, and answers a Response with status, headers and body", async () => {
    const res = await open(local("/token"), { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ grant_type: "authorization_code", code: "c1" }) });
    expect(res.status).toBe(201);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("set-cookie")).toContain("a=1");
    expect(await res.json()).toEqual({ method: "POST", type: "application/x-www-form-urlencoded", body: "grant_type=authorization_code&code=c1" });
  });

  it("returns a redirect as the answer instead of following it", async () => {
    const res = await open(local("/moved"));
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/elsewhere");
  });

  it("refuses a private address unless the policy allows it", async () => {
    const guarded = netFetch({ timeoutMs: 2000, maxBytes: 4096, allowPrivate: false });
    const err = await guarded(local("/token")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetError);
    expect((err as NetError).reason).toBe("blocked_address");
  });

  it("ends a call that does not answer in time with the TimeoutError libraries look for", async () => {
    const quick = netFetch({ timeoutMs: 50, maxBytes: 4096, allowPrivate: true });
    const err = await quick(local("/hold")).catch((e: unknown) => e);
    expect((err as Error).name).toBe("TimeoutError");
    expect((err as Error).cause).toBeInstanceOf(NetError);
  });

  it("keeps the size bound", async () => {
    const tiny = netFetch({ timeoutMs: 2000, maxBytes: 16, allowPrivate: true });
    const err = await tiny(local("/token")).catch((e: unknown) => e);
    expect((err as NetError).reason).toBe("too_large");
  });
});
