// The import and curation routes in-process, authenticated by personal API keys.
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { makeTenant, type TestTenant } from "@/test-support";
import { createApiKey } from "@/lib/authz/api-keys";
import { GET as listOps, PATCH as curate } from "../[namespace]/operations/route";
import { GET, POST } from "./route";

const spec = fs.readFileSync(path.join(process.cwd(), "lib/realms/openapi/fixtures/helpdesk.yaml"), "utf8");
let t: TestTenant;
let owner: string;
let member: string;

beforeAll(async () => {
  t = await makeTenant();
  owner = (await createApiKey(t.db, t.users.alice!, "import test")).key;
  member = (await createApiKey(t.db, t.users.bob!, "import test")).key;
});

const call = (handler: (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>, key: string, init: { method: string; body?: unknown; url?: string; params?: Record<string, string> }) =>
  handler(
    new Request(init.url ?? "http://realmgate.test/api/v1/realms/import", {
      method: init.method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      ...(init.body === undefined ? {} : { body: typeof init.body === "string" ? init.body : JSON.stringify(init.body) }),
    }),
    { params: Promise.resolve(init.params ?? {}) },
  );

describe("POST /api/v1/realms/import", () => {
  it("imports a pasted document larger than the 1 MiB default body limit (201), and a dry run answers the diff (200)", async () => {
    // A real document can be megabytes: pad the description past the default limit.
    const big = spec.replace("description: Tickets, comments and people of a customer support desk.", `description: "${"Support desk. ".repeat(100_000)}"`);
    expect(Buffer.byteLength(big)).toBeGreaterThan(1024 * 1024);
    const res = await call(POST, owner, { method: "POST", body: { namespace: "helpdesk", spec: big, base_url: "https://helpdesk.example.com/api/v2" } });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ namespace: "helpdesk", applied: true, operations: { total: 12 } });

    const dry = await call(POST, owner, { method: "POST", body: { namespace: "helpdesk", spec, dry_run: true } });
    expect(dry.status).toBe(200);
    expect(await dry.json()).toMatchObject({ dry_run: true, applied: false, diff: { added: { count: 0 }, removed: { count: 0 }, changed: { count: 0 }, unchanged: 12 } });

    const list = await call(GET, owner, { method: "GET" });
    expect((await list.json()).realms).toEqual([expect.objectContaining({ namespace: "helpdesk", operations: 12, source: "paste" })]);
  });

  it("answers one clear error for a bad body, a bad document and a member", async () => {
    const both = await call(POST, owner, { method: "POST", body: { namespace: "x1", spec, spec_url: "https://example.com/openapi.json" } });
    expect(both.status).toBe(400);
    expect((await both.json()).error.details.issues[0]).toMatchObject({ path: "spec", message: "give exactly one of spec and spec_url" });
    const swagger = await call(POST, owner, { method: "POST", body: { namespace: "x2", spec: { swagger: "2.0", paths: {} } } });
    expect(swagger.status).toBe(400);
    expect((await swagger.json()).error.message).toMatch(/Swagger 2.0/);
    const denied = await call(POST, member, { method: "POST", body: { namespace: "x3", spec } });
    expect(denied.status).toBe(403);
    expect((await denied.json()).error.code).toBe("forbidden");
  });
});

describe("/api/v1/realms/:namespace/operations", () => {
  it("lists and curates operations (owner only)", async () => {
    const url = "http://realmgate.test/api/v1/realms/helpdesk/operations";
    const params = { namespace: "helpdesk" };
    const page = await call(listOps, owner, { method: "GET", url: `${url}?q=ticket&limit=2`, params });
    expect(page.status).toBe(200);
    const body = await page.json();
    expect(body).toMatchObject({ total: 12, offset: 0 });
    expect(body.operations).toHaveLength(2);

    const res = await call(curate, owner, { method: "PATCH", url, params, body: { changes: [{ action: "tickets/delete", hidden: true }, { action: "tickets/get", label: "Open a ticket", risk: "write" }] } });
    expect(res.status).toBe(200);
    expect((await res.json()).operations).toEqual([
      expect.objectContaining({ action: "tickets/get", label: "Open a ticket", risk: "write", default_risk: "read" }),
      expect.objectContaining({ action: "tickets/delete", hidden: true }),
    ]);
    expect((await call(curate, member, { method: "PATCH", url, params, body: { changes: [{ action: "tickets/get", hidden: true }] } })).status).toBe(403);
    const unknown = await call(curate, owner, { method: "PATCH", url, params, body: { changes: [{ action: "nope", hidden: true }] } });
    expect(unknown.status).toBe(400);
  });
});
