// Demo data for the docs realm in the demo tenant: two documents owned by alice. Idempotent: a document
// whose title alice already has in the tenant is left as it is.
import { and, eq } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { docsComments, docsDocuments, docsTabs, docsThreads, type DocStatus } from "@/db/schema/docs";
import type { DemoSeedStep } from "@/db/seed";
import { refs } from "./refs";

type DemoDoc = {
  title: string;
  status: DocStatus;
  sharedWith: string[];
  tabs: { title: string; body: string }[];
  threads: { tab: number; quote: string; comments: { author: string; body: string }[]; resolvedBy?: string; note?: string }[];
};

function demoDocs(alice: string, bob: string): DemoDoc[] {
  return [
    {
      title: "Q3 planning",
      status: "review",
      sharedWith: [bob],
      tabs: [
        {
          title: "Goals",
          body: [
            "## What we want by the end of Q3",
            "",
            "- Ship the agent gateway to our first three customers.",
            "- Cut onboarding time for a new workspace to **under ten minutes**.",
            "- Keep every agent action auditable.",
          ].join("\n"),
        },
        {
          title: "Timeline",
          body: ["1. July: private preview with two design partners.", "2. Beta in August, behind an invite.", "3. September: general availability."].join("\n"),
        },
      ],
      threads: [
        {
          tab: 0,
          quote: "Ship the agent gateway to our first three customers.",
          comments: [
            { author: alice, body: "Do we have the three customers confirmed, or is this still a target?" },
            { author: bob, body: "Two have signed; the third is waiting on their security review." },
          ],
        },
        {
          tab: 1,
          quote: "Beta in August",
          comments: [{ author: alice, body: "August is tight with the holidays. Should we move the beta to September?" }],
        },
      ],
    },
    {
      title: "Onboarding guide",
      status: "published",
      sharedWith: [],
      tabs: [
        {
          title: "Welcome",
          body: [
            "Welcome to Acme!",
            "",
            "1. Sign in with your work account.",
            "2. Connect the tools you use in the Connection Hub.",
            "3. Decide what your agents may do for you, realm by realm.",
          ].join("\n"),
        },
      ],
      threads: [
        {
          tab: 0,
          quote: "Connect the tools you use",
          comments: [{ author: alice, body: "Link to the Connection Hub page here once it has a stable address." }],
          resolvedBy: alice,
          note: "Linked from the sidebar instead.",
        },
      ],
    },
  ];
}

async function insertDoc(db: Executor, tenantId: string, ownerId: string, doc: DemoDoc, now: Date): Promise<void> {
  const documentId = refs.newId("document");
  await db.insert(docsDocuments).values({ id: documentId, tenantId, title: doc.title, ownerId, sharedWith: doc.sharedWith, status: doc.status, createdAt: now, updatedAt: now });
  const tabIds = doc.tabs.map(() => refs.newId("tab"));
  await db.insert(docsTabs).values(doc.tabs.map((t, i) => ({ id: tabIds[i]!, tenantId, documentId, title: t.title, position: i + 1, body: t.body, createdAt: now, updatedAt: now })));
  for (const t of doc.threads) {
    const threadId = refs.newId("thread");
    await db.insert(docsThreads).values({
      id: threadId,
      tenantId,
      documentId,
      tabId: tabIds[t.tab]!,
      quote: t.quote,
      status: t.resolvedBy ? "resolved" : "open",
      createdBy: t.comments[0]!.author,
      resolvedBy: t.resolvedBy ?? null,
      resolvedAt: t.resolvedBy ? now : null,
      resolutionNote: t.note ?? null,
      createdAt: now,
      updatedAt: now,
    });
    // One by one: the identity column then orders the comments as written.
    for (const c of t.comments) await db.insert(docsComments).values({ id: refs.newId("comment"), tenantId, threadId, authorId: c.author, body: c.body, createdAt: now });
  }
}

export const seedDemo: DemoSeedStep = async (db, demo) => {
  const tenantId = demo.tenant.id;
  const alice = demo.users.alice?.user_id;
  const bob = demo.users.bob?.user_id;
  if (!alice || !bob) throw new Error("The docs demo needs the demo users alice and bob.");
  await db.transaction(async (tx) => {
    for (const doc of demoDocs(alice, bob)) {
      const [existing] = await tx
        .select({ id: docsDocuments.id })
        .from(docsDocuments)
        .where(and(eq(docsDocuments.tenantId, tenantId), eq(docsDocuments.ownerId, alice), eq(docsDocuments.title, doc.title)))
        .limit(1);
      if (!existing) await insertDoc(tx, tenantId, alice, doc, new Date());
    }
  });
};
