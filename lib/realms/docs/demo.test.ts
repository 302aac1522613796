import { and, eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { docsComments, docsDocuments, docsThreads } from "@/db/schema/docs";
import { makeTenant, seedDemoTwice } from "@/test-support";
import { adapter } from "./adapter";
import { seedDemo } from "./demo";

describe("docs demo seed", () => {
  it("creates alice's two documents once, however often it runs", async () => {
    const t = await makeTenant();
    await seedDemoTwice(seedDemo, t);
    const db = t.db;

    const docs = await db.select().from(docsDocuments).where(eq(docsDocuments.tenantId, t.tenantId));
    expect(docs.map((d) => d.title).sort()).toEqual(["Onboarding guide", "Q3 planning"]);
    const q3 = docs.find((d) => d.title === "Q3 planning")!;
    const guide = docs.find((d) => d.title === "Onboarding guide")!;
    expect(q3).toMatchObject({ ownerId: t.users.alice!.userId, sharedWith: [t.users.bob!.userId] });
    expect(guide.sharedWith).toEqual([]);

    const threads = await db.select().from(docsThreads).where(eq(docsThreads.tenantId, t.tenantId));
    expect(threads.filter((x) => x.documentId === q3.id).map((x) => x.status)).toEqual(["open", "open"]);
    expect(threads.filter((x) => x.documentId === guide.id).map((x) => x.status)).toEqual(["resolved"]);
    const comments = await db
      .select()
      .from(docsComments)
      .where(and(eq(docsComments.tenantId, t.tenantId), inArray(docsComments.threadId, threads.map((x) => x.id))));
    expect(comments.filter((c) => c.authorId === t.users.bob!.userId)).toHaveLength(1);

    // Bob sees the shared plan through the realm, with his reply in it, and not the guide.
    const bobDocs = await db.transaction((tx) =>
      adapter.list(
        { tx, tenantId: t.tenantId, principal: { type: "user", userId: t.users.bob!.userId }, requestId: "req_test", now: new Date(), delivery: noDelivery, appUrl: "http://x", gateRef: async () => {}, settled: () => { throw new Error("a list never settles writes"); } },
        { kind: "docs.document", filter: {}, after: null, limit: 10 },
      ),
    );
    expect(bobDocs.items.map((i) => i.label)).toEqual(["Q3 planning"]);
    expect(bobDocs.items[0]!.summary).toContain("2 tabs · 2 open threads");
  });
});

const noDelivery = {
  storeFile: () => Promise.reject(new Error("listing stores no files")),
  fileUrl: () => Promise.reject(new Error("listing mints no URLs")),
  deleteFile: () => Promise.reject(new Error("listing deletes no files")),
};
