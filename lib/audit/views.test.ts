import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditEvents } from "@/db/schema";
import { makeTenant, type TestTenant } from "@/test-support";
import { dbKind } from "@/db/client";
import { verifyAuditChainAs } from "./directory";
import { listAuditEvents, listAuditQuery } from "./query";
import { recordSupportView, VIEW_COALESCE_MS } from "./views";
import { verifyAuditChain } from "./verify";

const onPostgres = (await dbKind()) === "postgres";

const views = async (t: TestTenant) =>
  t.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.event, "support.viewed")));

const view = (t: TestTenant, who: string, details: { view: string } & Record<string, unknown>, at: Date) =>
  t.db.transaction((tx) => recordSupportView(tx, t.users[who]!, details, {}, at));

describe("support views are coalesced", () => {
  it("records two views of the same page and filter within ten minutes once", async () => {
    const t = await makeTenant();
    const q = listAuditQuery.parse({ outcome: "deny", limit: 50 });
    await listAuditEvents(t.db, t.users.sam!, q, "support.console");
    await listAuditEvents(t.db, t.users.sam!, q, "support.console");
    // Paging through the same search is the same view.
    await listAuditEvents(t.db, t.users.sam!, { ...q, before: 5 }, "support.console");
    const rows = await views(t);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ userId: t.users.sam!.userId, details: { view: "support.console", filters: { outcome: "deny" } } });
    expect((await verifyAuditChain(t.db, t.tenantId)).ok).toBe(true);
  });

  it.skipIf(!onPostgres)("records two views of the same page read at the same moment once: the second waits for the first's commit, then finds it", async () => {
    const t = await makeTenant();
    const now = new Date();
    const details = { view: "support.console", filters: { outcome: "deny" } };
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let firstWrote!: (w: boolean) => void;
    const first = new Promise<boolean>((r) => (firstWrote = r));
    // The first view's transaction records and stays open.
    const open = t.db.transaction(async (tx) => {
      firstWrote(await recordSupportView(tx, t.users.sam!, details, {}, now));
      await held;
    });
    expect(await first).toBe(true);
    const second = view(t, "sam", details, now);
    // Without the person's lock it would not see the uncommitted first record and write its own at once.
    const early = await Promise.race([second.then(() => "answered"), new Promise((r) => setTimeout(() => r("waiting"), 300))]);
    expect(early).toBe("waiting");
    release();
    await open;
    expect(await second).toBe(false);
    expect(await views(t)).toHaveLength(1);
  });

  it("records the same view again after ten minutes", async () => {
    const t = await makeTenant();
    const first = new Date(Date.now() - VIEW_COALESCE_MS - 60_000);
    expect(await view(t, "sam", { view: "support.console", filters: {} }, first)).toBe(true);
    expect(await view(t, "sam", { view: "support.console", filters: {} }, new Date(first.getTime() + 5 * 60_000))).toBe(false);
    expect(await view(t, "sam", { view: "support.console", filters: {} }, new Date())).toBe(true);
    expect(await views(t)).toHaveLength(2);
  });

  it("records a different filter, another page or another person as a new view", async () => {
    const t = await makeTenant({ alice: "owner", sam: "support", sue: "support" });
    const now = new Date();
    await view(t, "sam", { view: "support.console", filters: { outcome: "deny" } }, now);
    await view(t, "sam", { view: "support.console", filters: { outcome: "allow" } }, now);
    await view(t, "sam", { view: "grant.timeline", grant_id: "grt_a" }, now);
    await view(t, "sam", { view: "grant.timeline", grant_id: "grt_b" }, now);
    await view(t, "sue", { view: "support.console", filters: { outcome: "deny" } }, now);
    expect(await views(t)).toHaveLength(5);
  });

  it("does not audit an owner's reads", async () => {
    const t = await makeTenant();
    await listAuditEvents(t.db, t.users.alice!, listAuditQuery.parse({}), "support.console");
    expect(await views(t)).toHaveLength(0);
  });

  it("records the console's chain check once per result in ten minutes, an asked-for check every time", async () => {
    const t = await makeTenant();
    const verified = async () =>
      (await t.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.event, "audit.verified")))).length;
    await verifyAuditChainAs(t.db, t.users.sam!, { coalesce: true });
    await verifyAuditChainAs(t.db, t.users.sam!, { coalesce: true });
    expect(await verified()).toBe(1);
    await verifyAuditChainAs(t.db, t.users.sam!);
    expect(await verified()).toBe(2);
  });
});
