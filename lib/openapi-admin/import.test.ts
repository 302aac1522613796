import fs from "node:fs";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, openapiOperations, openapiRealms } from "@/db/schema";
import { errorOf, makeTenant, type TestTenant } from "@/test-support";
import { createActor } from "@/lib/authz/actors";
import type { ActorContext } from "@/lib/authz/context";
import { createGrant } from "@/lib/authz/grants";
import { newId } from "@/lib/ids";
import { manifestSchema } from "@/lib/realms/contract";
import { findRealm, listRealms } from "@/lib/realms/registry";
import { dispatch } from "@/lib/tools/dispatch";
import { curateOperations, listOperations } from "./curation";
import { startHelpdeskServer, type HelpdeskServer } from "@/lib/realms/openapi/fixtures/helpdesk-server";
import { importRealm, listImportedRealms } from "./import";

const yamlText = fs.readFileSync(path.join(import.meta.dirname, "../realms/openapi/fixtures/helpdesk.yaml"), "utf8");
const helpdesk = () => parseYaml(yamlText) as Record<string, unknown>;

let t: TestTenant;
let server: HelpdeskServer;
beforeAll(async () => {
  t = await makeTenant();
  // Served for imports by URL, with a relative server URL (resolved against where the document came from).
  server = await startHelpdeskServer({ specText: yamlText.replace("url: https://helpdesk.example.com/api/v2", "url: /api/v2") });
  process.env.REALMGATE_OPENAPI_PRIVATE_HOSTS = "127.0.0.1";
});
afterAll(async () => {
  delete process.env.REALMGATE_OPENAPI_PRIVATE_HOSTS;
  await server.close();
});


async function importHelpdesk(tt: TestTenant, namespace: string, extra: Record<string, unknown> = {}) {
  return importRealm(tt.db, tt.users.alice!, { namespace, spec: yamlText, base_url: server.baseUrl, ...extra });
}

describe("importing a document as a realm", () => {
  it("imports the Helpdesk as an owner: one card per operation, a parsed manifest, the realm in the registry", async () => {
    const res = await importHelpdesk(t, "helpdesk", { credential: { type: "bearer", token: "tok-123" }, keywords: ["support", "customer service"] });
    expect(res).toMatchObject({
      namespace: "helpdesk",
      title: "Helpdesk",
      applied: true,
      version: 1,
      operations: { total: 12, read: 7, write: 4, destructive: 1 },
      diff: { added: { count: 12 }, removed: { count: 0 }, changed: { count: 0 } },
      credential: { type: "bearer", configured: true },
    });
    // The secret is sealed at rest, never stored as given.
    const [row] = await t.db.select().from(openapiRealms).where(eq(openapiRealms.id, res.realm_id!));
    expect(row!.credentialSealed).not.toContain("tok-123");

    const realm = (await findRealm(t.db, t.tenantId, "helpdesk"))!;
    expect(() => manifestSchema.parse(realm.manifest)).not.toThrow();
    expect(realm.manifest).toMatchObject({ realm_type: "openapi", kinds: [{ name: "helpdesk.operation_result" }] });
    expect(realm.manifest.actions.map((a) => a.name)).toContain("GET/search/person");
    expect(realm.manifest.catalog.children.map((c) => c.path)).toEqual(["/tickets", "/comments", "/people", "/meta"]);
    expect((await listRealms(t.db, t.tenantId)).map((r) => r.manifest.namespace)).toContain("helpdesk");

    // Another tenant sees nothing of it.
    const other = await makeTenant({ eve: "owner" });
    expect(await findRealm(other.db, other.tenantId, "helpdesk")).toBeNull();
    expect(await listImportedRealms(t.db, t.users.alice!)).toEqual([expect.objectContaining({ namespace: "helpdesk", operations: 12, credential: { type: "bearer", configured: true } })]);
  });

  it("imports from a URL, taking the base URL relative to it when the document's server is relative", async () => {
    const tt = await makeTenant();
    const origin = new URL(server.baseUrl).origin;
    const res = await importRealm(tt.db, tt.users.alice!, { namespace: "byurl", spec_url: `${origin}/openapi.yaml` });
    expect(res).toMatchObject({ applied: true, operations: { total: 12 }, base_url: server.baseUrl });
    expect(await dispatch(tt.users.alice!, "object_action", { namespace: "byurl", action: "tickets/get", payload: { ticket_id: 1 } })).toMatchObject({ status: 200 });
    const missing = await errorOf(importRealm(tt.db, tt.users.alice!, { namespace: "byurl2", spec_url: `${origin}/nope.yaml` }));
    expect(missing).toMatchObject({ code: "invalid_input", message: expect.stringMatching(/answered HTTP 404/) });
    const metadata = await errorOf(importRealm(tt.db, tt.users.alice!, { namespace: "byurl3", spec_url: "http://169.254.169.254/openapi.json" }));
    expect(metadata.message).toMatch(/private network address/);
  });

  it("refuses members, built-in namespaces and bad documents — writing nothing", async () => {
    expect((await errorOf(importRealm(t.db, t.users.bob!, { namespace: "desk2", spec: yamlText }))).code).toBe("forbidden");
    expect((await errorOf(importRealm(t.db, t.users.alice!, { namespace: "memory", spec: yamlText, base_url: server.baseUrl }))).code).toBe("conflict");
    const broken = helpdesk();
    (broken.paths as Record<string, Record<string, unknown>>)["/tickets"]!.get = { parameters: [{ $ref: "#/components/parameters/gone" }] };
    const bad = await errorOf(importRealm(t.db, t.users.alice!, { namespace: "broken", spec: broken, base_url: server.baseUrl }));
    expect(bad).toMatchObject({ code: "invalid_input", details: { issues: [{ path: "paths./tickets.get.parameters[0]", message: "$ref #/components/parameters/gone points nowhere" }] } });
    expect(await t.db.select().from(openapiRealms).where(and(eq(openapiRealms.tenantId, t.tenantId), eq(openapiRealms.namespace, "broken")))).toEqual([]);
    const noServer = { ...helpdesk(), servers: [] };
    expect((await errorOf(importRealm(t.db, t.users.alice!, { namespace: "noserver", spec: noServer }))).message).toMatch(/give base_url/);
    expect((await errorOf(importRealm(t.db, t.users.alice!, { namespace: "meta", spec: yamlText, base_url: "http://169.254.169.254/latest" }))).message).toMatch(/private network/);
  });

  it("shows what a re-import changes before applying it (dry_run), then applies it and keeps curation", async () => {
    const tt = await makeTenant();
    await importHelpdesk(tt, "desk");
    await curateOperations(tt.db, tt.users.alice!, "desk", { changes: [{ action: "tickets/get", label: "Open a ticket" }] });
    const next = helpdesk();
    const paths = next.paths as Record<string, Record<string, Record<string, unknown>>>;
    delete paths["/status"];
    paths["/tickets/{ticket_id}/merge"] = {
      post: { operationId: "tickets/merge", summary: "Merge two tickets", parameters: [{ $ref: "#/components/parameters/ticket_id" }, { name: "into", in: "query", required: true, schema: { type: "integer" } }] },
    };
    paths["/tickets"]!.get!.summary = "List all tickets";
    (paths["/tickets/{ticket_id}/comments"]!.post!.parameters as unknown[]).push({ name: "notify", in: "query", required: true, schema: { type: "boolean" } });

    const dry = await importRealm(tt.db, tt.users.alice!, { namespace: "desk", spec: next, base_url: server.baseUrl, dry_run: true });
    expect(dry).toMatchObject({
      dry_run: true,
      applied: false,
      exists: true,
      diff: {
        added: { count: 1, operations: ["tickets/merge"] },
        removed: { count: 1, operations: ["meta/status"] },
        changed: { count: 2, operations: [{ action: "tickets/list", changes: ["summary"] }, { action: "comments/create", changes: ["input +notify; now required: notify"] }] },
        unchanged: 9,
      },
    });
    // Nothing applied yet.
    expect((await findRealm(tt.db, tt.tenantId, "desk"))!.manifest.actions.map((a) => a.name)).toContain("meta/status");

    const applied = await importRealm(tt.db, tt.users.alice!, { namespace: "desk", spec: next, base_url: server.baseUrl });
    expect(applied).toMatchObject({ applied: true, version: 3, diff: { added: { count: 1 }, removed: { count: 1 } } });
    const realm = (await findRealm(tt.db, tt.tenantId, "desk"))!;
    expect(realm.manifest.actions.map((a) => a.name)).not.toContain("meta/status");
    expect(realm.manifest.service_card.operation_labels["object.action.tickets/get"]).toBe("Open a ticket");
    const audit = await tt.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, tt.tenantId), eq(auditEvents.event, "realm.imported")));
    expect(audit.map((a) => a.details.added)).toEqual([12, 1]);
  });

  it("imports a document with 5,000 operations within seconds", async () => {
    const tt = await makeTenant();
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 2500; i++) {
      paths[`/things${i}/{id}`] = {
        parameters: [{ $ref: "#/components/parameters/id" }],
        get: { operationId: `things${i}/get`, summary: `Get thing ${i}`, tags: [`group${i % 40}`] },
        patch: { operationId: `things${i}/update`, summary: `Update thing ${i}`, tags: [`group${i % 40}`], requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } } } },
      };
    }
    const doc = {
      openapi: "3.0.3",
      info: { title: "Things", version: "1" },
      servers: [{ url: "https://things.example.com" }],
      paths,
      components: { parameters: { id: { name: "id", in: "path", required: true, schema: { type: "string" } } }, schemas: { Thing: { type: "object", properties: { name: { type: "string" }, parts: { type: "array", items: { $ref: "#/components/schemas/Thing" } } } } } },
    };
    // How long it takes is measured by `npm run bench:import` (BENCHMARKS.md), not here.
    const res = await importRealm(tt.db, tt.users.alice!, { namespace: "things", spec: doc });
    const realm = (await findRealm(tt.db, tt.tenantId, "things"))!;
    expect(res.operations.total).toBe(5000);
    expect(realm.manifest.actions).toHaveLength(5000);
    expect((await tt.db.select({ a: openapiOperations.action }).from(openapiOperations).where(eq(openapiOperations.realmId, res.realm_id!))).length).toBe(5000);
    // Describing the realm stays small: a few actions, and the way to find the rest.
    const about = (await dispatch(tt.users.alice!, "provider_about", { namespace: "things" })) as { actions: { allowed: unknown[] }; actions_total: number; more_actions: string };
    expect(about.actions.allowed).toHaveLength(30);
    expect(about).toMatchObject({ actions_total: 5000, more_actions: expect.stringContaining("object_schema(query=") });
    expect(JSON.stringify(about).length).toBeLessThan(12_000);
    const found = (await dispatch(tt.users.alice!, "object_schema", { query: "update thing 1234" })) as { matches: { operation: string }[] };
    expect(found.matches[0]!.operation).toBe("object.action.things1234/update");
  });
});

describe("owner curation shows in the manifest, the picker and tool answers", () => {
  it("hides, relabels, re-risks and marks exact-grant-only; members may not curate", async () => {
    const tt = await makeTenant();
    await importHelpdesk(tt, "desk");
    expect((await errorOf(curateOperations(tt.db, tt.users.bob!, "desk", { changes: [{ action: "tickets/delete", hidden: true }] }))).code).toBe("forbidden");
    expect((await errorOf(curateOperations(tt.db, tt.users.alice!, "desk", { changes: [{ action: "tickets/nope", hidden: true }] }))).message).toMatch(/Unknown operation in desk: tickets\/nope/);
    const res = await curateOperations(tt.db, tt.users.alice!, "desk", {
      changes: [
        { action: "tickets/delete", hidden: true },
        { action: "tickets/update", label: "Change a ticket's status or priority", keywords: ["escalate", "triage"], exact_grant_only: true },
        { action: "comments/create", risk: "destructive" },
      ],
    });
    expect(res.version).toBe(2);
    const m = (await findRealm(tt.db, tt.tenantId, "desk"))!.manifest;
    expect(m.actions.map((a) => a.name)).not.toContain("tickets/delete");
    expect(m.service_card.operation_labels["object.action.tickets/update"]).toBe("Change a ticket's status or priority (only an exact grant covers it)");
    expect(m.actions.find((a) => a.name === "comments/create")!.risk).toBe("destructive");
    const listed = await listOperations(tt.db, tt.users.alice!, "desk", { q: "ticket", offset: 0, limit: 50 });
    expect(listed).toMatchObject({ total: 12, hidden: 1 });
    expect(listed.operations.find((o) => o.action === "tickets/delete")).toMatchObject({ hidden: true, default_risk: "destructive" });

    // Curated keywords reach capability search.
    const found = (await dispatch(tt.users.alice!, "object_schema", { query: "escalate a ticket" })) as { matches: { operation: string; endpoint?: string }[] };
    expect(found.matches[0]).toMatchObject({ operation: "object.action.tickets/update", endpoint: "PATCH /tickets/{ticket_id}" });
  });
});

describe("running an imported operation through the nine tools", () => {
  it("finds an operation by capability search, reads its exact contract, and runs it", async () => {
    const tt = await makeTenant();
    await importHelpdesk(tt, "desk", { credential: { type: "header", name: "X-Api-Key", value: "desk-key" } });
    const alice = tt.users.alice!;
    const found = (await dispatch(alice, "object_schema", { query: "find a person by name" })) as { matches: { namespace: string; operation: string; endpoint?: string }[] };
    expect(found.matches[0]).toMatchObject({ namespace: "desk", operation: "object.action.GET/search/person", endpoint: "GET /search/person" });

    const contract = (await dispatch(alice, "object_schema", { namespace: "desk", operation: "object.action.GET/search/person" })) as { payload_schema: Record<string, unknown>; risk: string };
    expect(contract).toMatchObject({ risk: "read", payload_schema: { properties: { q: { type: "string", minLength: 2 } }, required: ["q"] } });

    const result = await dispatch(alice, "object_action", { namespace: "desk", action: "GET/search/person", payload: { q: "ada" } });
    expect(result).toEqual({ status: 200, content_type: "application/json", body: { items: [{ login: "ada", name: "Ada Lovelace", email: "ada@example.com" }] } });
    expect(server.requests.at(-1)).toMatchObject({ method: "GET", url: "/api/v2/search/person?q=ada", headers: expect.objectContaining({ "x-api-key": "desk-key" }) });

    // Payloads that fail the operation schema name the field; nothing is sent.
    const before = server.requests.length;
    const bad = await errorOf(dispatch(alice, "object_action", { namespace: "desk", action: "tickets/create", payload: { title: "", priority: "whenever", url: "http://evil" } }));
    expect(bad.code).toBe("invalid_input");
    expect((bad.details.issues as { path: string }[]).map((i) => i.path).sort()).toEqual(["priority", "title", "url"]);
    expect(server.requests.length).toBe(before);

    // A service in trouble answers provider_unavailable, bounded.
    server.down = true;
    try {
      const down = await errorOf(dispatch(alice, "object_action", { namespace: "desk", action: "meta/status" }));
      expect(down).toMatchObject({ code: "provider_unavailable", details: { status: 503, service: expect.stringContaining("127.0.0.1") } });
    } finally {
      server.down = false;
    }
  });

  it("an agent needs a grant, and an exact one for operations marked exact-grant-only", async () => {
    const tt = await makeTenant();
    await importHelpdesk(tt, "desk");
    await curateOperations(tt.db, tt.users.alice!, "desk", { changes: [{ action: "tickets/update", exact_grant_only: true }] });
    const { actor } = await createActor(tt.db, tt.users.bob!, { name: "Triage bot", kind: "hosted_agent", issue_token: false, token_expires_in_days: null });
    const agent: ActorContext = {
      kind: "actor",
      tenantId: tt.tenantId,
      actorId: actor.id,
      actorKind: "hosted_agent",
      actorName: actor.name,
      grantorId: tt.users.bob!.userId,
      via: "actor_token",
      credentialId: newId("tok"),
      requestId: newId("req"),
    };
    const call = { namespace: "desk", action: "tickets/update", payload: { ticket_id: 1, status: "pending" } };
    expect((await errorOf(dispatch(agent, "object_action", call))).code).toBe("consent_required");
    await createGrant(tt.db, tt.users.bob!, { actor_id: actor.id, namespace: "desk", operations: ["provider.about", "object.action.*"], resource_scope: null, expires: "1d" });
    expect(await dispatch(agent, "object_action", { namespace: "desk", action: "tickets/get", payload: { ticket_id: 1 } })).toMatchObject({ status: 200 });
    // The wildcard does not cover it: gate one asks for consent to exactly this operation.
    expect(await errorOf(dispatch(agent, "object_action", call))).toMatchObject({ code: "consent_required", details: { operation: "object.action.tickets/update" } });
    await createGrant(tt.db, tt.users.bob!, { actor_id: actor.id, namespace: "desk", operations: ["object.action.tickets/update"], resource_scope: null, expires: "1d" });
    expect(await dispatch(agent, "object_action", call)).toMatchObject({ status: 200, body: { status: "pending" } });
  });
});
