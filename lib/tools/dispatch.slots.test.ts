// Calls on native realms take one of the node's call slots before their transaction opens (lib/limits/call-slots.ts):
// past the node's most at once they wait, and past the wait bound they are answered 503 busy with nothing read or
// written. A call on a connected realm (which may wait on the network in its transaction) takes none.
import { and, count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents } from "@/db/schema";
import { revokeGrant } from "@/lib/authz/grants";
import { nativeCallSlots } from "@/lib/limits/call-slots";
import { newId } from "@/lib/ids";
import { call, envOverride, errorOf, grant, makeActor, makeTenant, type TestTenant } from "@/test-support";
import { dispatch } from "./dispatch";

type Agent = Awaited<ReturnType<typeof makeActor>>;

const env = envOverride();
let t: TestTenant;
let agent: Agent;

beforeAll(async () => {
  t = await makeTenant();
  agent = await makeActor(t, t.users.alice!);
  await grant(t, t.users.alice!, agent.actorId, "docs", ["provider.about", "object.search"]);
  await dispatch(call(t.users.alice!), "upsert_object", { namespace: "docs", kind: "docs.document", fields: { title: "Slots planning" } });
  // One slot, and a short wait for it (the pool's bound, DB_CONNECT_TIMEOUT_MS, bounds it).
  env.set({ REALMGATE_NATIVE_MAX_IN_FLIGHT: "1", DB_CONNECT_TIMEOUT_MS: "300" });
});
afterAll(() => env.restore());

/** Hold the node's only slot until `release()`. */
function holdTheSlot() {
  let release!: () => void;
  const held = nativeCallSlots().run(() => new Promise<void>((r) => (release = r)));
  return { release: () => (release(), held) };
}

const auditCount = async () =>
  (await t.db.select({ n: count() }).from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.actorId, agent.actorId))))[0]!.n;

const pending = () => ({ kind: "pending_actor" as const, token: agent.token, requestId: newId("req"), verified: false });

describe("a call on a native realm", () => {
  it("waits while the node runs its most such calls at once, and runs once a slot comes back", async () => {
    const slot = holdTheSlot();
    let done = false;
    const search = dispatch(call(agent), "search_objects", { namespace: "docs", query: "Slots" }).finally(() => (done = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(done).toBe(false);
    await slot.release();
    const result = (await search) as { items: unknown[] };
    expect(JSON.stringify(result.items)).toContain("Slots planning");
    expect(nativeCallSlots().running).toBe(0);
  });

  it("waiting past the bound is answered 503 busy, and nothing is read, counted or audited", async () => {
    const before = await auditCount();
    const slot = holdTheSlot();
    // Both ways in: an actor already known (MCP) and a token looked up in the call's own statement (REST).
    for (const who of [call(agent), pending()]) {
      const err = await errorOf(dispatch(who, "search_objects", { namespace: "docs", query: "Slots" }));
      expect(err.code).toBe("service_unavailable");
      expect(err.status).toBe(503);
      expect(err.details).toMatchObject({ reason: "busy", retry_hint: "retry_later" });
    }
    await slot.release();
    expect(await auditCount()).toBe(before);
  });

  it("gives its slot back when it is refused or fails", async () => {
    const refused = await errorOf(dispatch(call(agent), "get_object", { ref: "docs:document:doc_nothere" }));
    expect(refused.code).not.toBe("service_unavailable");
    expect(nativeCallSlots().running).toBe(0);
  });
});

describe("while calls wait for a slot", () => {
  it("an owner's revoke is not queued behind them, and a call still waiting when it commits is refused", async () => {
    const alice = t.users.alice!;
    const other = await makeActor(t, alice, "Queued agent");
    const g = await grant(t, alice, other.actorId, "docs", ["object.search"]);
    env.set({ DB_CONNECT_TIMEOUT_MS: "5000" });
    const slot = holdTheSlot();
    try {
      const queued = errorOf(dispatch(call(other), "search_objects", { namespace: "docs", query: "Slots" }));
      await new Promise((r) => setTimeout(r, 50));
      expect(nativeCallSlots().waiting).toBe(1);
      // The revoke needs a pooled connection, not a slot: it commits while the call still waits.
      await revokeGrant(t.db, call(alice), g.id, "revoked while the agent's call waited");
      expect(nativeCallSlots().waiting).toBe(1);
      await slot.release();
      expect((await queued).code).toBe("grant_revoked");
    } finally {
      await slot.release();
      env.set({ DB_CONNECT_TIMEOUT_MS: "300" });
    }
  });
});

describe("a call on a connected realm", () => {
  it("takes no slot: it runs while every slot is held", async () => {
    const slot = holdTheSlot();
    try {
      const about = (await dispatch(call(agent), "provider_about", { namespace: "mail" })) as { namespace?: string; manifest?: { namespace?: string } };
      expect(JSON.stringify(about)).toContain("mail");
    } finally {
      await slot.release();
    }
  });
});
