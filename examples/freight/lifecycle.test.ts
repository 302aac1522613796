// The provider's life as a process: self-registration against a stand-in Realmgate (saved, mode 0600, and reused
// on restart without registering again), data kept across restarts in the same data directory, a refused
// registration that leaves it serving, and the CLI's READY/REGISTERED lines and clean SIGTERM.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFreight } from "./app";
import { call, TEST_REGISTRATION } from "./test-client";

const SELF = { registrationId: "rrp_self", tenantId: "ten_self", secret: "rgs_self_secret_fedcba9876543210" };

/** A stand-in for Realmgate's register endpoint: one good token, fetches the manifest like the real one. */
let realmgate: Server;
let realmgateUrl: string;
const registered: string[] = [];
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "freight-"));
  realmgate = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      void (async () => {
        const send = (status: number, value: unknown) => {
          // No keep-alive: a later test's fetch must not reuse a socket this server is closing (its 5 s idle timeout
          // racing the reuse was seen as "fetch failed" on a busy machine).
          res.writeHead(status, { "content-type": "application/json", connection: "close" });
          res.end(JSON.stringify(value));
        };
        if (req.url !== "/api/v1/remote-providers/register" || req.method !== "POST") return send(404, { error: { code: "not_found", message: "no such route" } });
        if (req.headers.authorization !== "Bearer rgr_good") return send(401, { error: { code: "invalid_token", message: "the registration token is unknown, expired or used" } });
        const { url } = JSON.parse(body) as { url: string };
        const manifest = (await (await fetch(`${url}/manifest`)).json()) as { manifest_version: string; manifest: { namespace: string } };
        registered.push(url);
        send(201, { provider: { id: SELF.registrationId, namespace: manifest.manifest.namespace, url, manifest_version: manifest.manifest_version, status: "active" }, secret: SELF.secret, tenant_id: SELF.tenantId });
      })();
    });
  });
  await new Promise<void>((done) => realmgate.listen(0, "127.0.0.1", done));
  realmgateUrl = `http://127.0.0.1:${(realmgate.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((done) => realmgate.close(() => done()));
  await rm(dir, { recursive: true, force: true });
});

describe("registration and restarts", () => {
  it("self-registers once, saves the registration (0600), and keeps data and registration across a restart", async () => {
    const dataDir = join(dir, "desk");
    const first = await startFreight({ port: 0, dataDir, realmgateUrl, registrationToken: "rgr_good" });
    expect(registered).toEqual([first.url]);
    expect(first.registration()).toEqual(SELF);
    const file = join(dataDir, "registration.json");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ registration_id: SELF.registrationId, tenant_id: SELF.tenantId, secret: SELF.secret });
    const moved = await call(first.url, "action", { action: "reschedule", ref: "freight:shipment:s1044", payload: { due_at: "2027-01-15T10:00:00Z", reason: "Plant closed over the holidays." } }, { registration: SELF });
    expect(moved.status).toBe(200);
    await first.close();

    const second = await startFreight({ port: 0, dataDir, realmgateUrl, registrationToken: "rgr_good" });
    try {
      expect(registered).toHaveLength(1); // the saved registration is used; the token is not spent again
      expect(second.registration()).toEqual(SELF);
      const got = await call(second.url, "get", { ref: "freight:shipment:s1044", full: false }, { registration: SELF });
      expect(got.body.result).toMatchObject({ due_at: "2027-01-15T10:00:00.000Z" });
      const all = await call(second.url, "list", { kind: "freight.shipment", filter: {}, cursor: null, limit: 50 }, { registration: SELF });
      expect((all.body.result as { items: unknown[] }).items).toHaveLength(12); // seeded once, not twice
    } finally {
      await second.close();
    }
  });

  it("keeps serving when Realmgate refuses the registration, and takes one later", async () => {
    const app = await startFreight({ port: 0, realmgateUrl, registrationToken: "rgr_spent" });
    try {
      expect(app.registration()).toBeNull();
      expect(app.registrationError).toMatch(/invalid_token: the registration token is unknown, expired or used/);
      expect((await fetch(`${app.url}/manifest`)).status).toBe(200);
      const before = await call(app.url, "about", {});
      expect(before.body.error?.code).toBe("provider_unavailable");
      app.setRegistration(TEST_REGISTRATION);
      const after = await call(app.url, "about", {});
      expect(after.body.result).toMatchObject({ status: "ok" });
    } finally {
      await app.close();
    }
  });
});

describe("the command line", () => {
  it("prints READY and REGISTERED (never the secret) and stops cleanly on SIGTERM", async () => {
    const child = spawn(process.execPath, ["node_modules/tsx/dist/cli.mjs", "examples/freight/server.ts"], {
      cwd: join(import.meta.dirname, "../.."),
      env: {
        ...process.env,
        FREIGHT_PORT: "0",
        FREIGHT_DATA_DIR: "",
        FREIGHT_REGISTRATION: JSON.stringify({ registration_id: TEST_REGISTRATION.registrationId, tenant_id: TEST_REGISTRATION.tenantId, secret: TEST_REGISTRATION.secret }),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    try {
      child.stderr.on("data", (c: Buffer) => (err += c.toString("utf8")));
      const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
      await new Promise<void>((done, fail) => {
        child.stdout.on("data", (c: Buffer) => {
          out += c.toString("utf8");
          if (out.includes("FREIGHT_REGISTERED")) done();
        });
        child.on("exit", () => fail(new Error(`exited early: ${err}`)));
      });
      const ready = /FREIGHT_READY (\{.*\})/.exec(out);
      const { url } = JSON.parse(ready![1]!) as { url: string };
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(JSON.parse(/FREIGHT_REGISTERED (\{.*\})/.exec(out)![1]!)).toEqual({ registration_id: TEST_REGISTRATION.registrationId, namespace: "freight" });
      const about = await call(url, "about", {});
      expect(about.body.result).toMatchObject({ status: "ok" });
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(out + err).not.toContain(TEST_REGISTRATION.secret);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL"); // never leave it running after a failure
    }
  });
});
