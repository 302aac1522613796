// The navigation badge counts what waits for the person: consent requests and single-call approvals, live ones only.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { approvals } from "@/db/schema";
import { call, errorOf, makeActor, makeTenant } from "@/test-support";
import { dispatch } from "@/lib/tools/dispatch";
import { pendingRequestCount } from "./pending";

describe("pendingRequestCount", () => {
  it("counts a consent request and a waiting approval, and drops an approval past its time", async () => {
    const t = await makeTenant(undefined, { destructiveDefault: "ask" });
    const bob = t.users.bob!;
    const agent = await makeActor(t, bob, "Counter");
    expect(await pendingRequestCount(t.db, bob)).toBe(0);
    expect((await errorOf(dispatch(call(agent), "list_objects", { namespace: "memory", kind: "memory.item" }))).code).toBe("consent_required");
    const doc = (await dispatch(call(bob), "upsert_object", { namespace: "docs", kind: "docs.document", fields: { title: "Count me" } })) as { ref: string };
    const id = (await errorOf(dispatch(call(agent), "delete_object", { ref: doc.ref }))).details.approval_id as string;
    expect(await pendingRequestCount(t.db, bob)).toBe(2);
    expect(await pendingRequestCount(t.db, t.users.alice!)).toBe(0);
    await t.db.update(approvals).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(approvals.id, id));
    expect(await pendingRequestCount(t.db, bob)).toBe(1);
  });
});
