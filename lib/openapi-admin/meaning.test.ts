// What a person approves is what the agent gets: a re-import or a curation that changes an operation's meaning
// (its endpoint, or a higher effective risk) suspends that operation on the grants covering it — and only it.
import { and, eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { auditEvents, grants, openapiRealms, type Grant } from "@/db/schema";
import { makeActor, makeTenant, type TestTenant } from "@/test-support";
import { newId } from "@/lib/ids";
import { ACTION_NAME_PATTERN } from "@/lib/realms/contract";
import { findRealm } from "@/lib/realms/registry";
import { curateOperations } from "./curation";
import { importRealm } from "./import";
import { curationMeaningChange, meaningChanges } from "./meaning";

type Ops = Record<string, Record<string, Record<string, unknown>>>;
const doc = (paths: Ops) => ({ openapi: "3.1.0", info: { title: "Things", version: "1" }, servers: [{ url: "https://things.example.com" }], paths });
const original = (): Ops => ({
  "/c": { get: { operationId: "things/c", summary: "Read c" } },
  "/d": { get: { operationId: "things/d", summary: "Read d" } },
  "/make": { post: { operationId: "things/make", summary: "Make a thing" } },
});
/** The same operationId, now calling another method and path: the agent would get something else. */
const moved = (): Ops => {
  const p = original();
  delete p["/c"];
  p["/everything"] = { delete: { operationId: "things/c", summary: "Read c" } };
  return p;
};

/** The answer of a dry run / of an applied import (importRealm answers either shape). */
const dryRun = (r: Awaited<ReturnType<typeof importRealm>>) => {
  if (!("affected_grants" in r)) throw new Error("expected a dry run");
  return r;
};
const applied = (r: Awaited<ReturnType<typeof importRealm>>) => {
  if (!("suspended_grants" in r)) throw new Error("expected an applied import");
  return r;
};

const card = (action: string, method: string, path: string, risk: "read" | "write" | "destructive") => ({ action, method: method as "GET", path, risk });

describe("meaning changes (pure)", () => {
  it("an endpoint move, a risk rise, an added and a removed operation are changes; a lower risk is not", () => {
    const before = [card("a", "GET", "/c", "read"), card("b", "POST", "/b", "write"), card("gone", "GET", "/g", "read"), card("same", "GET", "/s", "read")];
    const after = [card("a", "DELETE", "/everything", "destructive"), card("b", "GET", "/b", "read"), card("new", "DELETE", "/n", "destructive"), card("same", "GET", "/s", "read")];
    expect(meaningChanges(before, after, new Map())).toEqual([
      { operation: "object.action.a", change: "endpoint GET /c → DELETE /everything; risk read → destructive" },
      { operation: "object.action.b", change: "endpoint POST /b → GET /b" },
      { operation: "object.action.new", change: "new operation DELETE /n (destructive)" },
      { operation: "object.action.gone", change: "removed from the service (was GET /g)" },
    ]);
  });

  it("a new service address changes every operation", () => {
    const both = [card("a", "GET", "/a", "read")];
    expect(meaningChanges(both, both, new Map(), { from: "https://a.example.com", to: "https://b.example.com" })).toEqual([
      { operation: "object.action.a", change: "service address https://a.example.com → https://b.example.com" },
    ]);
    expect(meaningChanges(both, both, new Map(), { from: "https://a.example.com", to: "https://a.example.com" })).toEqual([]);
  });

  it("the owner's override is the effective risk on both sides of a re-import", () => {
    const before = [card("a", "GET", "/a", "read"), card("b", "GET", "/b", "read")];
    const after = [card("a", "POST", "/a", "write"), card("b", "POST", "/b", "write")];
    // `a` pinned to destructive: a method change to POST moves the endpoint but does not raise its risk.
    expect(meaningChanges(before, after, new Map([["a", { risk: "destructive" as const }]]))).toEqual([
      { operation: "object.action.a", change: "endpoint GET /a → POST /a" },
      { operation: "object.action.b", change: "endpoint GET /b → POST /b; risk read → write" },
    ]);
  });

  it("a curation changes meaning only when the effective risk rises", () => {
    const c = card("x", "POST", "/x", "write");
    expect(curationMeaningChange(c, null, "destructive")).toEqual({ operation: "object.action.x", change: "risk write → destructive (set by the owner)" });
    expect(curationMeaningChange(c, null, "read")).toBeNull();
    expect(curationMeaningChange(c, "read", null)).toEqual({ operation: "object.action.x", change: "risk read → write (set by the owner)" });
    expect(curationMeaningChange(c, "destructive", null)).toBeNull();
    expect(curationMeaningChange(c, null, null)).toBeNull();
  });
});

describe("re-import and curation suspend what was granted for a changed operation", () => {
  let t: TestTenant;
  let exact: string;
  let all: string;
  let revoked: string;
  let actorName: string;

  const grantRow = async (id: string): Promise<Grant> => (await t.db.select().from(grants).where(eq(grants.id, id)))[0]!;
  const suspensionsAudit = () =>
    t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.event, "grant.suspended")));
  const realmVersion = async () => (await t.db.select({ v: openapiRealms.version }).from(openapiRealms).where(eq(openapiRealms.tenantId, t.tenantId)))[0]!.v;

  beforeEach(async () => {
    t = await makeTenant();
    await importRealm(t.db, t.users.alice!, { namespace: "things", spec: doc(original()) });
    const agent = await makeActor(t, t.users.bob!, "Sorting bot");
    actorName = agent.actorName;
    const row = (operations: string[], extra: Partial<typeof grants.$inferInsert> = {}) => ({
      id: newId("grt"),
      tenantId: t.tenantId,
      actorId: agent.actorId,
      grantorId: t.users.bob!.userId,
      namespace: "things",
      operations,
      expiresAt: null,
      ...extra,
    });
    const rows = [
      row(["provider.about", "object.action.things/c", "object.action.things/d"]),
      row(["provider.about"], { allActions: true }),
      row(["object.action.things/c"], { revokedAt: new Date(), revokedBy: t.users.bob!.userId, revokeReason: "done" }),
    ];
    await t.db.insert(grants).values(rows);
    [exact, all, revoked] = rows.map((r) => r.id) as [string, string, string];
  });

  it("the dry run lists the grants that will be suspended and writes nothing", async () => {
    const dry = dryRun(await importRealm(t.db, t.users.alice!, { namespace: "things", spec: doc(moved()), dry_run: true }));
    const change = "endpoint GET /c → DELETE /everything; risk read → destructive";
    expect(dry).toMatchObject({ dry_run: true, applied: false, affected_grant_count: 2 });
    expect(dry.affected_grants).toEqual(
      expect.arrayContaining([
        { grant_id: exact, actor_id: expect.any(String), actor_name: actorName, grantor_id: t.users.bob!.userId, operation: "object.action.things/c", change },
        expect.objectContaining({ grant_id: all, operation: "object.action.things/c", change }),
      ]),
    );
    expect(dry.affected_grants).toHaveLength(2);
    expect((await grantRow(exact)).suspensions).toEqual({});
    expect((await grantRow(all)).suspensions).toEqual({});
    expect(await suspensionsAudit()).toEqual([]);
    expect(await realmVersion()).toBe(1);
  });

  it("a re-import moving GET /c (read) to DELETE /everything (destructive) suspends exactly that operation, with an audit record", async () => {
    const res = applied(await importRealm(t.db, t.users.alice!, { namespace: "things", spec: doc(moved()) }));
    const change = "endpoint GET /c → DELETE /everything; risk read → destructive";
    expect(res).toMatchObject({ applied: true, version: 2, suspended_grant_count: 2, diff: { changed: { operations: [{ action: "things/c" }] } } });
    expect(res.suspended_grants.map((a) => [a.grant_id, a.operation, a.change]).sort()).toEqual(
      [
        [exact, "object.action.things/c", change],
        [all, "object.action.things/c", change],
      ].sort(),
    );

    const g = await grantRow(exact);
    expect(Object.keys(g.suspensions)).toEqual(["object.action.things/c"]);
    expect(g.suspensions["object.action.things/c"]).toEqual({ at: expect.any(String), change });
    // The rest of the grant stays live and unsuspended.
    expect(g.suspensions["object.action.things/d"]).toBeUndefined();
    expect(g.revokedAt).toBeNull();
    expect(g.operations).toEqual(["provider.about", "object.action.things/c", "object.action.things/d"]);
    expect(Object.keys((await grantRow(all)).suspensions)).toEqual(["object.action.things/c"]);
    // A revoked grant is not touched.
    expect((await grantRow(revoked)).suspensions).toEqual({});

    const audit = await suspensionsAudit();
    expect(audit).toHaveLength(2);
    const forExact = audit.find((a) => a.subjectId === exact)!;
    expect(forExact).toMatchObject({ namespace: "things", outcome: "ok", reason: "meaning_changed", details: { operations: [{ operation: "object.action.things/c", change }] } });
    const imported = await t.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.event, "realm.imported")));
    expect(imported.map((a) => a.details.suspended_grants)).toEqual([0, 2]);

    // Importing the same document again changes nothing more.
    const again = await importRealm(t.db, t.users.alice!, { namespace: "things", spec: doc(moved()) });
    expect(again).toMatchObject({ suspended_grants: [], suspended_grant_count: 0 });
    expect(await suspensionsAudit()).toHaveLength(2);
  });

  it("a summary change suspends nothing; a new operation is suspended only where 'every action' would reach it", async () => {
    const p = original();
    p["/c"]!.get!.summary = "Read c, differently";
    const calm = await importRealm(t.db, t.users.alice!, { namespace: "things", spec: doc(p) });
    expect(calm).toMatchObject({ applied: true, suspended_grants: [], suspended_grant_count: 0, diff: { changed: { count: 1 } } });
    expect(await suspensionsAudit()).toEqual([]);
    p["/e"] = { delete: { operationId: "things/e" } };
    const added = applied(await importRealm(t.db, t.users.alice!, { namespace: "things", spec: doc(p) }));
    expect(added.suspended_grants.map((a) => [a.grant_id, a.operation])).toEqual([[all, "object.action.things/e"]]);
    expect((await grantRow(exact)).suspensions).toEqual({});
  });

  it("an operation removed and later added back (as something else) does not inherit the old approval", async () => {
    const without = original();
    delete without["/c"];
    const removed = applied(await importRealm(t.db, t.users.alice!, { namespace: "things", spec: doc(without) }));
    expect(removed.suspended_grants.map((a) => [a.grant_id, a.operation]).sort()).toEqual(
      [
        [exact, "object.action.things/c"],
        [all, "object.action.things/c"],
      ].sort(),
    );
    await importRealm(t.db, t.users.alice!, { namespace: "things", spec: doc(moved()) });
    expect(Object.keys((await grantRow(exact)).suspensions)).toEqual(["object.action.things/c"]);
  });

  it("a new service address suspends every operation the grants cover", async () => {
    const elsewhere = { ...doc(original()), servers: [{ url: "https://elsewhere.example.com" }] };
    const dry = dryRun(await importRealm(t.db, t.users.alice!, { namespace: "things", spec: elsewhere, dry_run: true }));
    expect(dry.affected_grants.some((a) => a.grant_id === exact && a.change.startsWith("service address"))).toBe(true);
    await importRealm(t.db, t.users.alice!, { namespace: "things", spec: elsewhere });
    expect(Object.keys((await grantRow(exact)).suspensions).sort()).toEqual(["object.action.things/c", "object.action.things/d"]);
  });

  it("a curation raising the effective risk suspends it; lowering risk, relabelling or hiding suspends nothing", async () => {
    const raise = await curateOperations(t.db, t.users.alice!, "things", { changes: [{ action: "things/d", risk: "destructive" }] });
    const change = "risk read → destructive (set by the owner)";
    expect(raise).toMatchObject({ suspended_grant_count: 2 });
    expect(raise.suspended_grants.map((a) => [a.grant_id, a.operation, a.change]).sort()).toEqual(
      [
        [exact, "object.action.things/d", change],
        [all, "object.action.things/d", change],
      ].sort(),
    );
    expect(Object.keys((await grantRow(exact)).suspensions)).toEqual(["object.action.things/d"]);
    expect((await suspensionsAudit()).map((a) => a.subjectId).sort()).toEqual([exact, all].sort());

    const calm = await curateOperations(t.db, t.users.alice!, "things", {
      changes: [
        { action: "things/make", risk: "read" },
        { action: "things/c", label: "Look at c", keywords: ["peek"] },
        { action: "things/c", hidden: true },
      ],
    });
    expect(calm).toMatchObject({ suspended_grants: [], suspended_grant_count: 0 });
    expect(Object.keys((await grantRow(all)).suspensions)).toEqual(["object.action.things/d"]);
    expect(await suspensionsAudit()).toHaveLength(2);

    // Restoring a lowered override is a rise back to the document's risk: covered by the all-actions grant only.
    const restore = await curateOperations(t.db, t.users.alice!, "things", { changes: [{ action: "things/make", risk: null }] });
    expect(restore.suspended_grants).toEqual([expect.objectContaining({ grant_id: all, operation: "object.action.things/make", change: "risk read → write (set by the owner)" })]);
    // Several changes to one operation in one body compare first state against last: read → write → read is no rise.
    const roundTrip = await curateOperations(t.db, t.users.alice!, "things", {
      changes: [
        { action: "things/c", risk: "write" },
        { action: "things/c", risk: null },
      ],
    });
    expect(roundTrip.suspended_grant_count).toBe(0);
  });
});

describe("operationIds that are not names", () => {
  it("an operationId `*` is renamed by METHOD/path with a warning in the import report — never `*`, never dropped", async () => {
    const t = await makeTenant();
    const res = await importRealm(t.db, t.users.alice!, {
      namespace: "stars",
      spec: doc({ "/all": { get: { operationId: "*", summary: "Everything" }, post: { operationId: "list all" } }, "/one": { get: { operationId: "one" } } }),
    });
    expect(res.operations.total).toBe(3);
    expect(res.warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/^operationId "\*" is not a usable action name .*the operation is named GET\/all$/),
      expect.stringMatching(/^operationId "list all" is not a usable action name .*the operation is named POST\/all$/),
    ]);
    const names = (await findRealm(t.db, t.tenantId, "stars"))!.manifest.actions.map((a) => a.name);
    expect(names).toEqual(["GET/all", "POST/all", "one"]);
    for (const n of names) expect(n).toMatch(ACTION_NAME_PATTERN);
    expect(names).not.toContain("*");
  });
});
