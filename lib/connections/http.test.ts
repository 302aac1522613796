import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NetError, textOf } from "@/lib/net";
import { providerFailure, providerFetch } from "./http";

let server: Server;
let url = "";
beforeAll(async () => {
  server = createServer((req, res) => {
    // /slow is held, never answered: the client's timeout ends it (and closeAllConnections, at the end).
    if (req.url === "/slow") return;
    if (req.url === "/big") res.end("x".repeat(2048));
    else if (req.url === "/moved") res.writeHead(302, { location: "http://169.254.169.254/" }).end();
    else res.end('{"ok":true}');
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));

const kindOf = (p: Promise<unknown>) => p.then(() => "ok", (e: unknown) => (e instanceof NetError ? providerFailure(e).kind : String(e)));

describe("calls to providers", () => {
  it("are bounded in time, in size, and never follow a redirect", async () => {
    expect(await kindOf(providerFetch(`${url}/slow`, { timeoutMs: 100 }))).toBe("timeout");
    expect(await kindOf(providerFetch(`${url}/big`, { maxBytes: 1024 }))).toBe("too_large");
    expect((await providerFetch(`${url}/moved`)).status).toBe(302);
    expect(textOf(await providerFetch(`${url}/`))).toBe('{"ok":true}');
    expect(await kindOf(providerFetch("http://127.0.0.1:1/"))).toBe("network");
  });
});
