// The one test-support module: fixtures (fresh tenants, people, delegated actors and grants, a realm call's
// context), what a call ended with (codeOf, errorOf, thrownCode), environment overrides and a frozen clock.
// Only tests import it (lib/architecture.test.ts checks that nothing else does).
import { vi } from "vitest";
import type { AuditEventView } from "@/lib/audit/view";
import { getDb, onExchange, onStatement, type Db } from "@/db/client";
import { memberships, tenants, users, type ResourceScope, type Role } from "@/db/schema";
import type { DemoFile, DemoSeedStep } from "@/db/seed";
import { createActor } from "@/lib/authz/actors";
import type { ActorContext, UserContext } from "@/lib/authz/context";
import { createGrantTx } from "@/lib/authz/grants";
import { reloadEnv } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import type { DeliveryPort, Principal, Realm, RealmAdapter, RealmContext } from "@/lib/realms/contract";
import { tenantRealmSources, type TenantRealmSource } from "@/lib/realms/registry";
import { settledWrites } from "@/lib/realms/settled";

// ── Tenants and people: fresh ones per test, so tests sharing one database never see each other's data.

export type TestTenant = { db: Db; tenantId: string; slug: string; users: Record<string, UserContext & { email: string }> };

/**
 * A fresh tenant. Its destructive operations start `on` (a tenant from before approvals), so tests of other rules
 * need no approval; tests of ask mode pass `{ destructiveDefault: "ask" }`, as a new tenant gets.
 */
export async function makeTenant(
  roles: Record<string, Role> = { alice: "owner", bob: "member", sam: "support" },
  opts: { destructiveDefault?: "ask" | "on" } = {},
): Promise<TestTenant> {
  const db = await getDb();
  const tenantId = newId("tnt");
  const slug = tenantId.replace("tnt_", "t-");
  await db.insert(tenants).values({ id: tenantId, slug, name: `Tenant ${slug}`, destructiveDefault: opts.destructiveDefault ?? "on" });
  const out: TestTenant["users"] = {};
  for (const [name, role] of Object.entries(roles)) {
    const userId = newId("usr");
    const email = `${name}.${userId}@example.test`;
    await db.insert(users).values({ id: userId, email, name });
    await db.insert(memberships).values({ tenantId, userId, role });
    out[name] = { kind: "user", tenantId, userId, role, via: "session", requestId: newId("req"), email };
  }
  return { db, tenantId, slug, users: out };
}

// ── Delegated actors and their grants.

export async function makeActor(t: TestTenant, grantor: UserContext, name = "Test Agent"): Promise<ActorContext & { token: string }> {
  const { actor, token } = await createActor(t.db, grantor, { name, kind: "hosted_agent", issue_token: true, token_expires_in_days: null });
  return {
    kind: "actor",
    tenantId: t.tenantId,
    actorId: actor.id,
    actorKind: "hosted_agent",
    actorName: name,
    grantorId: grantor.userId,
    via: "actor_token",
    credentialId: token!.id,
    requestId: newId("req"),
    token: token!.token,
  };
}

export async function grant(
  t: TestTenant,
  grantor: UserContext,
  actorId: string,
  namespace: string,
  operations: string[],
  opts: { expiresAt?: Date | null; scope?: ResourceScope | null } = {},
) {
  return t.db.transaction((tx) =>
    createGrantTx(tx, grantor, { actorId, namespace, operations, resourceScope: opts.scope ?? null, expiresAt: opts.expiresAt ?? null }),
  );
}

/** A fresh request id per call, as every real request has. */
export const call = <C extends { requestId: string }>(ctx: C): C => ({ ...ctx, requestId: newId("req") });

/** A call to settle: a promise, or a function (sync or async) to run. */
export type Outcome = Promise<unknown> | (() => unknown);
const settle = (p: Outcome): Promise<unknown> => (typeof p === "function" ? Promise.resolve().then(p) : p);

/** The outcome of a call as a test reads it: "ok", or the AppError code (anything else is unexpected). */
export const codeOf = async (p: Outcome): Promise<string> => {
  try {
    await settle(p);
    return "ok";
  } catch (e) {
    return e instanceof AppError ? e.code : `unexpected: ${(e as Error).message}`;
  }
};

/** The AppError a call ends with (a test failure if it succeeds or throws anything else). */
export const errorOf = async (p: Outcome): Promise<AppError> => {
  try {
    await settle(p);
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error("expected an error");
};

// ── Realm adapters: a RealmContext for one call in its own transaction, as the dispatcher builds it.

export const refusingDelivery = (realm: string): DeliveryPort => ({
  storeFile: () => Promise.reject(new Error(`${realm} never stores files`)),
  fileUrl: () => Promise.reject(new Error(`${realm} never signs file URLs`)),
  deleteFile: () => Promise.reject(new Error(`${realm} never deletes files`)),
});

export const userPrincipal = (t: TestTenant, name: string): Principal => ({ type: "user", userId: t.users[name]!.userId });

/** What a test's `gateRef` does: record each ref the adapter gates (`gated`), refuse the listed ones (`refuse`). */
export type GateOpts = { gated?: string[]; refuse?: string[] };

/**
 * Run one adapter call in its own transaction, as the dispatcher does. `gateRef` records every ref the adapter
 * gates (in `gated`, when given) and refuses those listed in `refuse`, as a scoped grant would. `now` is the call's
 * clock (`ctx.now`; the real time unless given), so a test can order what it writes without waiting.
 */
export async function inCall<T>(
  t: TestTenant,
  principal: Principal,
  delivery: DeliveryPort,
  fn: (ctx: RealmContext) => Promise<T>,
  opts: GateOpts & { now?: Date } = {},
): Promise<T> {
  const db = await getDb();
  const gateRef = async (ref: string, where?: string) => {
    opts.gated?.push(ref);
    if (opts.refuse?.includes(ref)) throw new AppError("consent_required", `${ref} is outside the grant's scope.`, { details: { ref, where: where ?? null } });
  };
  // As the dispatcher: the effect in a savepoint; ctx.settled writes after it, on the call's transaction, kept even when it fails.
  const settled = settledWrites();
  const outcome = await db.transaction(async (tx) => {
    try {
      return { value: await tx.transaction((sp) => fn({ tx: sp, tenantId: t.tenantId, principal, requestId: "req_test", now: opts.now ?? new Date(), delivery, appUrl: "http://x", gateRef, settled: settled.add })) };
    } catch (error) {
      return { error };
    } finally {
      await settled.run(tx);
    }
  });
  if ("error" in outcome) throw outcome.error;
  return outcome.value;
}

/**
 * One realm's adapter calls as its tests make them: `as(t, who, fn, opts?)` runs `fn` as one call (`inCall`) by a
 * person of the tenant (by name) or any principal; `upsert(t, who, kind, fields, ref?)` creates (no ref) or patches.
 */
export function realmCalls(adapter: RealmAdapter, delivery: DeliveryPort) {
  const as = <T>(t: TestTenant, who: string | Principal, fn: (ctx: RealmContext) => Promise<T>, opts: GateOpts & { now?: Date } = {}) =>
    inCall(t, typeof who === "string" ? userPrincipal(t, who) : who, delivery, fn, opts);
  const upsert = (t: TestTenant, who: string | Principal, kind: string, fields: Record<string, unknown>, ref: string | null = null) =>
    as(t, who, (ctx) => adapter.upsert(ctx, { kind, ref, fields }));
  return { as, upsert };
}

/** A realm's demo step run on a test tenant as `npm run dev` runs it, twice (a second start finds the first's rows). */
export async function seedDemoTwice(step: DemoSeedStep, t: TestTenant): Promise<DemoFile> {
  const demo: DemoFile = {
    app_url: "http://x",
    tenant: { id: t.tenantId, slug: t.slug, name: "Demo" },
    users: Object.fromEntries(Object.entries(t.users).map(([k, u]) => [k, { email: u.email, name: k, role: u.role, password: "x", api_key: "x", user_id: u.userId }])),
  };
  await step(t.db, demo, null);
  await step(t.db, demo, demo);
  return demo;
}

/** The code a synchronous call throws with (or "returned"). */
export function thrownCode(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e.code;
    throw e;
  }
  return "returned";
}

/** An executor (a Db or a Tx) that counts the statements run through it, in transactions it opens too. */
function counting<E extends object>(executor: E, count: () => void): E {
  return new Proxy(executor, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target) as unknown;
      if (typeof v !== "function") return v;
      return (...args: unknown[]) => {
        if (typeof prop === "string" && /^(select|selectDistinct|selectDistinctOn|insert|update|delete|execute)$/.test(prop)) count();
        if (prop === "transaction" && typeof args[0] === "function") {
          const body = args[0] as (tx: object) => unknown;
          args = [(tx: object) => body(counting(tx, count)), ...args.slice(1)];
        }
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** A context whose transaction counts the statements the adapter runs (to prove a batch is bounded). */
export function countingQueries(ctx: RealmContext): { ctx: RealmContext; queries: () => number } {
  let n = 0;
  return { ctx: { ...ctx, tx: counting(ctx.tx, () => n++) }, queries: () => n };
}

/** A database handle that counts the statements a service runs through it (to prove a read is batched). */
export function countingDb(db: Db): { db: Db; queries: () => number } {
  let n = 0;
  return { db: counting(db, () => n++), queries: () => n };
}

/**
 * Every statement the process sends the database server from now until `stop()`, one per round trip: BEGIN,
 * COMMIT, ROLLBACK, SAVEPOINT and RELEASE included (db/client.ts sees them at the driver, on PGlite and on pg).
 * Nothing else may run meanwhile: tests of one worker run one at a time.
 */
export function roundTrips() {
  const statements: string[] = [];
  const off = onStatement((sql) => statements.push(sql.replace(/\s+/g, " ").trim()));
  let exchanges = 0;
  const offExchanges = onExchange(() => exchanges++);
  return {
    statements,
    /** Exchanges with the server so far (PostgreSQL; 0 on PGlite, which runs in this process). */
    get exchanges() {
      return exchanges;
    },
    stop() {
      off();
      offExchanges();
      return statements;
    },
  };
}

// ── A second copy of a module, as Next.js gives one to instrumentation.ts and one to the routes (docs/architecture.md,
// "One process, two copies of a module"): imported under a query, so only that module is instantiated again. Not
// vi.resetModules(): test files share a worker's module registry (vitest `isolate: false`), and every later file
// would get fresh copies of everything (db/client.ts's statement observers, db/prepared.ts's names) while the
// worker's database stays the one the old copies opened.

let copies = 0;

/** A fresh instance of the module at `spec` (an `@/…` path with its extension), its imports shared as usual. */
export async function secondCopyOf<M>(spec: string): Promise<M> {
  return (await import(/* @vite-ignore */ `${spec}?second-copy=${++copies}`)) as M;
}

// ── Environment: change process.env for a test file and put it back afterwards (re-reading lib/env each time).

export function envOverride() {
  const saved: Record<string, string | undefined> = {};
  const put = (k: string, v: string | undefined) => {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  };
  return {
    set(vars: Record<string, string | undefined>) {
      for (const [k, v] of Object.entries(vars)) {
        if (!(k in saved)) saved[k] = process.env[k];
        put(k, v);
      }
      reloadEnv();
    },
    restore() {
      for (const [k, v] of Object.entries(saved)) put(k, v);
      reloadEnv();
    },
  };
}

// ── Time: a clock the code under test reads through Date, frozen where the test puts it.

/**
 * Freeze `Date` (only `Date`: timers, I/O and the database keep real time) at `at`, so a test never straddles a
 * rate-limit window or an expiry it did not choose. `advance` moves it; `restore` gives real time back (call it
 * in afterEach: test files share a worker).
 */
export function frozenClock(at: Date = new Date()) {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(at);
  return {
    now: () => new Date(),
    advance(ms: number) {
      vi.setSystemTime(new Date(Date.now() + ms));
    },
    restore() {
      vi.useRealTimers();
    },
  };
}

/** A test's own realm, found (as an imported realm is) only by the tenants it is shown to, until `remove()`. */
export function tenantRealm(realm: Realm) {
  const tenants = new Set<string>();
  const source: TenantRealmSource = {
    list: async (_db, tenantId) => (tenants.has(tenantId) ? [realm] : []),
    get: async (_db, tenantId, ns) => (tenants.has(tenantId) && ns === realm.manifest.namespace ? realm : null),
  };
  tenantRealmSources.push(source);
  return { showTo: (tenantId: string) => void tenants.add(tenantId), remove: () => void tenantRealmSources.splice(tenantRealmSources.indexOf(source), 1) };
}

/** An audit event as the trail's readers get it (lib/audit/view.ts), with the fields a test sets. */
export const auditEventView = (over: Partial<AuditEventView>): AuditEventView => ({
  id: "evt_1",
  pos: 1,
  lane: 0,
  seq: 1,
  at: "2026-12-01T10:00:00.000Z",
  event: "tool.call",
  request_id: null,
  principal_type: "user",
  user_id: "usr_alice",
  actor_id: null,
  namespace: null,
  operation: null,
  ref: null,
  outcome: "ok",
  gate: null,
  reason: null,
  subject_id: null,
  details: {},
  ...over,
});
