import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditEvents } from "@/db/schema";
import { makeTenant, type TestTenant } from "@/test-support";
import { verifyAuditChainAs } from "./directory";
import { listAuditEvents, listAuditQuery } from "./query";
import { recordSupportView, VIEW_COALESCE_MS } from "./views";
import { verifyAuditChain } from "./verify";

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
