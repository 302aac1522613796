import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { newId } from "@/lib/ids";
import type { CursorState, DeliveryPort, Principal } from "@/lib/realms/contract";
import { makeTenant, realmCalls, type TestTenant } from "@/test-support";
import { adapter } from "./adapter";
import { documentKind } from "./kinds/document";
import { manifest } from "./manifest";

/** An in-memory DeliveryPort that records what the realm stored and which URLs it minted. */
function fakeDelivery() {
  const files = new Map<string, { namespace: string; name: string; contentType: string; bytes: Uint8Array; ownerUserId: string }>();
  const urls: { fileId: string; name?: string; ref?: string }[] = [];
  const port: DeliveryPort = {
    async storeFile(input) {
      const fileId = newId("fil");
      files.set(fileId, input);
      return { fileId, size: input.bytes.length, sha256: createHash("sha256").update(input.bytes).digest("hex") };
    },
    async fileUrl(fileId, opts) {
      urls.push({ fileId, name: opts?.name, ...(opts?.ref ? { ref: opts.ref } : {}) });
      return { encoding: "url", url: `http://x/files/${fileId}?sig=test`, expires_at: new Date(Date.now() + 300_000).toISOString() };
    },
    async deleteFile(fileId) {
      files.delete(fileId);
    },
  };
  return { port, files, urls };
}

const delivery = fakeDelivery();
/** One call as `who` in its own transaction, as the dispatcher would (gateRef records into `gated`, refuses `refuse`). */
const { as } = realmCalls(adapter, delivery.port);

const action = (name: string) => manifest.actions.find((a) => a.name === name)!;

async function createDoc(t: TestTenant, who: string, fields: Record<string, unknown>): Promise<string> {
  return (await as(t, who, (ctx) => adapter.upsert(ctx, { kind: "docs.document", ref: null, fields }))).ref;
}
async function createTab(t: TestTenant, who: string, document: string, title: string, body: string): Promise<string> {
  return (await as(t, who, (ctx) => adapter.upsert(ctx, { kind: "docs.tab", ref: null, fields: { document, title, body } }))).ref;
}
async function createThread(t: TestTenant, who: string, fields: Record<string, unknown>): Promise<string> {
  return (await as(t, who, (ctx) => adapter.upsert(ctx, { kind: "docs.comment_thread", ref: null, fields }))).ref;
}

/** Every page of a listing, following next cursors. */
async function allPages(t: TestTenant, who: string, kind: string, filter: Record<string, string>, limit: number) {
  const pages: string[][] = [];
  let after: CursorState | null = null;
  do {
    const page: Awaited<ReturnType<typeof adapter.list>> = await as(t, who, (ctx) => adapter.list(ctx, { kind, filter, after, limit }));
    pages.push(page.items.map((i) => i.ref));
    after = page.next;
  } while (after && pages.length < 50);
  return pages;
}

describe("docs adapter", () => {
  let t: TestTenant;
  beforeAll(async () => {
    t = await makeTenant();
  });

  it("creates a document with a first tab, adds tabs, and starts a thread anchored to a quote", async () => {
    const created = await as(t, "alice", (ctx) => adapter.upsert(ctx, { kind: "docs.document", ref: null, fields: { title: "Launch plan" } }));
    expect(created.created).toBe(true);
    expect(created.ref).toMatch(/^docs:document:doc_[0-9a-z]{20}$/);
    expect(created.object).toMatchObject({ title: "Launch plan", status: "draft", owner: t.users.alice!.email, shared_with: [] });
    expect(created.object.tabs).toEqual([expect.objectContaining({ title: "Tab 1", position: 1, body_chars: 0 })]);

    const risks = await createTab(t, "alice", created.ref, "Risks", "The vendor may be late.\nWe have no  backup plan.");
    const first = await createTab(t, "alice", created.ref, "Summary", "In short: ship in May.");
    await as(t, "alice", (ctx) => adapter.upsert(ctx, { kind: "docs.tab", ref: first, fields: { position: 1 } }));
    const doc = await as(t, "alice", (ctx) => adapter.get(ctx, { ref: created.ref, full: false }));
    expect((doc.tabs as { title: string; position: number }[]).map((x) => [x.position, x.title])).toEqual([
      [1, "Summary"],
      [2, "Tab 1"],
      [3, "Risks"],
    ]);

    // A quote without a tab anchors to the tab that contains it (whitespace runs folded).
    const thread = await as(t, "alice", (ctx) =>
      adapter.upsert(ctx, { kind: "docs.comment_thread", ref: null, fields: { document: created.ref, quote: "no backup plan", body: "Who owns a backup?" } }),
    );
    expect(thread.ref).toMatch(/^docs:thread:thr_/);
    expect(thread.object).toMatchObject({ tab: risks, tab_title: "Risks", quote: "no backup plan", status: "open", comment_count: 1 });
    expect(thread.object.comments).toEqual([expect.objectContaining({ author: t.users.alice!.email, body: "Who owns a backup?" })]);

    await expect(
      as(t, "alice", (ctx) => adapter.upsert(ctx, { kind: "docs.comment_thread", ref: null, fields: { document: created.ref, tab: first, quote: "vendor", body: "?" } })),
    ).rejects.toMatchObject({ code: "invalid_input" });
    await expect(as(t, "alice", (ctx) => adapter.upsert(ctx, { kind: "docs.document", ref: null, fields: { title: "x", color: "red" } }))).rejects.toMatchObject({
      code: "invalid_input",
    });
    await expect(as(t, "alice", (ctx) => adapter.upsert(ctx, { kind: "docs.document", ref: null, fields: { status: "draft" } }))).rejects.toMatchObject({
      code: "invalid_input",
    });
  });

  it("pages through documents, tabs and threads with cursors: no duplicates, no gaps", async () => {
    const p = await makeTenant();
    const docs: string[] = [];
    for (let i = 0; i < 7; i++) docs.push(await createDoc(p, "alice", { title: `Doc ${i}` }));
    const pages = await allPages(p, "alice", "docs.document", {}, 3);
    expect(pages.map((x) => x.length)).toEqual([3, 3, 1]);
    expect(pages.flat()).toEqual([...docs].reverse()); // most recently changed first
    // Editing a document moves it to the front.
    await as(p, "alice", (ctx) => adapter.upsert(ctx, { kind: "docs.document", ref: docs[0]!, fields: { title: "Doc 0, edited" } }));
    expect((await allPages(p, "alice", "docs.document", {}, 100))[0]![0]).toBe(docs[0]);

    for (let i = 0; i < 4; i++) await createTab(p, "alice", docs[1]!, `Tab ${i}`, "");
    const tabPages = await allPages(p, "alice", "docs.tab", { document: docs[1]! }, 2);
    expect(tabPages.map((x) => x.length)).toEqual([2, 2, 1]);
    expect(new Set(tabPages.flat()).size).toBe(5);

    const threads: string[] = [];
    for (let i = 0; i < 5; i++) threads.push(await createThread(p, "alice", { document: docs[2]!, body: `Point ${i}` }));
    const threadPages = await allPages(p, "alice", "docs.comment_thread", { document: docs[2]! }, 2);
    expect(threadPages.flat()).toEqual(threads);

    const tabCursor = (await as(p, "alice", (ctx) => adapter.list(ctx, { kind: "docs.tab", filter: { document: docs[1]! }, after: null, limit: 1 }))).next;
    await expect(as(p, "alice", (ctx) => adapter.list(ctx, { kind: "docs.document", filter: {}, after: tabCursor, limit: 1 }))).rejects.toMatchObject({
      code: "invalid_cursor",
    });
    await expect(as(p, "alice", (ctx) => adapter.list(ctx, { kind: "docs.tab", filter: {}, after: null, limit: 5 }))).rejects.toMatchObject({ code: "invalid_input" });
  });

  it("filters documents by status and author, threads by status", async () => {
    const p = await makeTenant();
    const a = await createDoc(p, "alice", { title: "Alice draft" });
    const b = await createDoc(p, "alice", { title: "Alice published", status: "published", shared_with: [p.users.bob!.email] });
    const c = await createDoc(p, "bob", { title: "Bob draft", shared_with: [p.users.alice!.email] });
    const list = (filter: Record<string, string>) => as(p, "alice", (ctx) => adapter.list(ctx, { kind: "docs.document", filter, after: null, limit: 50 })).then((r) => r.items.map((i) => i.ref));
    expect(await list({ status: "draft" })).toEqual([c, a]);
    expect(await list({ author: p.users.bob!.email })).toEqual([c]);
    expect(await list({ author: "bob" })).toEqual([c]);
    expect(await list({ author: "me" })).toEqual([b, a]);
    expect(await list({ author: "nobody at all" })).toEqual([]);
    await expect(list({ status: "archived" })).rejects.toMatchObject({ code: "invalid_input" });

    const t1 = await createThread(p, "alice", { document: a, body: "one" });
    const t2 = await createThread(p, "alice", { document: a, body: "two" });
    await as(p, "alice", (ctx) => adapter.action(ctx, { action: action("resolve_thread"), ref: t1, payload: {} }));
    const threads = (filter: Record<string, string>) =>
      as(p, "alice", (ctx) => adapter.list(ctx, { kind: "docs.comment_thread", filter, after: null, limit: 50 })).then((r) => r.items.map((i) => i.ref));
    expect(await threads({ document: a, status: "open" })).toEqual([t2]);
    expect(await threads({ document: a, status: "resolved" })).toEqual([t1]);
  });

  it("searches documents over titles and tab bodies, and threads over their comments", async () => {
    const p = await makeTenant();
    const budget = await createDoc(p, "alice", { title: "Budget 2026" });
    const roadmap = await createDoc(p, "alice", { title: "Roadmap" });
    await createTab(p, "alice", roadmap, "Costs", "We need more budget for the 50% cloud increase.");
    const hidden = await createDoc(p, "bob", { title: "Bob's budget notes" });
    const thread = await createThread(p, "alice", { document: roadmap, body: "Is the cloud increase confirmed?" });
    await as(p, "alice", (ctx) => adapter.action(ctx, { action: action("reply_comment"), ref: thread, payload: { body: "Yes, finance signed off." } }));

    const search = (kind: string | null, query: string, filter: Record<string, string> = {}) =>
      as(p, "alice", (ctx) => adapter.search(ctx, { kind, query, filter, after: null, limit: 20 }));
    const docs = await search("docs.document", "BUDGET");
    expect(docs.items.map((i) => i.ref).sort()).toEqual([budget, roadmap].sort());
    expect(docs.items.map((i) => i.ref)).not.toContain(hidden);
    // The statement is built once per shape: the next caller's values are its own, not the first one's.
    const bobs = await as(p, "bob", (ctx) => adapter.search(ctx, { kind: "docs.document", query: "BUDGET", filter: {}, after: null, limit: 20 }));
    expect(bobs.items.map((i) => i.ref)).toEqual([hidden]);
    // Where the text matched: the tab and the words around it; a title match alone adds nothing.
    expect(docs.items.find((i) => i.ref === roadmap)!.summary).toContain("— Costs: “We need more budget for the 50% cloud increase.”");
    expect(docs.items.find((i) => i.ref === budget)!.summary).not.toContain("—");
    expect((await search("docs.document", "budget cloud")).items.map((i) => i.ref)).toEqual([roadmap]);
    expect((await search("docs.document", "50%")).items.map((i) => i.ref)).toEqual([roadmap]);
    expect((await search("docs.document", "budget", { status: "published" })).items).toEqual([]);
    expect((await search("docs.comment_thread", "finance")).items.map((i) => i.ref)).toEqual([thread]);
    const mixed = await search(null, "cloud");
    expect(mixed.items.map((i) => [i.kind, i.ref])).toEqual([
      ["docs.document", roadmap],
      ["docs.comment_thread", thread],
    ]);
    // The same mix, one item per page.
    const first = await as(p, "alice", (ctx) => adapter.search(ctx, { kind: null, query: "cloud", filter: {}, after: null, limit: 1 }));
    const second = await as(p, "alice", (ctx) => adapter.search(ctx, { kind: null, query: "cloud", filter: {}, after: first.next, limit: 1 }));
    expect([...first.items, ...second.items].map((i) => i.ref)).toEqual([roadmap, thread]);
    expect(second.next).toBeNull();
    await expect(search("docs.comment", "x")).rejects.toMatchObject({ code: "invalid_input" });
    await expect(search("docs.document", "   ")).rejects.toMatchObject({ code: "invalid_input" });
  });

  it("a search without a kind pages through documents, then threads, the same at every page size", async () => {
    // Each kind's first page is asked for together (a full page each); a thread page that does not fit the room
    // the documents left is asked again with exactly that room. Whatever the page size, the pages together are
    // the documents' matches, then the threads', each once, and the last page says there is nothing more.
    const q = await makeTenant();
    const word = `zeta${Date.now().toString(36)}`;
    const docs: string[] = [];
    for (let i = 0; i < 3; i++) docs.push(await createDoc(q, "alice", { title: `${word} plan ${i}` }));
    for (let i = 0; i < 4; i++) await createThread(q, "alice", { document: docs[0]!, body: `${word} point ${i}` });
    const all = async (kind: string) => (await as(q, "alice", (ctx) => adapter.search(ctx, { kind, query: word, filter: {}, after: null, limit: 50 }))).items.map((i) => i.ref);
    const expected = [...(await all("docs.document")), ...(await all("docs.comment_thread"))];
    expect(expected).toHaveLength(7);
    for (const limit of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const seen: string[] = [];
      let after: CursorState | null = null;
      let pages = 0;
      do {
        const page: Awaited<ReturnType<typeof adapter.search>> = await as(q, "alice", (ctx) => adapter.search(ctx, { kind: null, query: word, filter: {}, after, limit }));
        expect(page.items.length).toBeLessThanOrEqual(limit);
        seen.push(...page.items.map((i) => i.ref));
        after = page.next;
        pages++;
      } while (after && pages < 20);
      expect({ limit, seen }).toEqual({ limit, seen: expected });
      // Full pages until the last: as few pages as the page size allows (or one more that is empty).
      expect(pages).toBeLessThanOrEqual(Math.ceil(7 / limit) + 1);
    }
  });

  it("gets compact objects by default and tab bodies only with full", async () => {
    const ref = await createDoc(t, "alice", { title: "Compact test" });
    const tab = await createTab(t, "alice", ref, "Body", "x".repeat(1_000));
    const compact = await as(t, "alice", (ctx) => adapter.get(ctx, { ref, full: false }));
    for (const x of compact.tabs as Record<string, unknown>[]) expect(x).not.toHaveProperty("body");
    expect(compact.tabs).toContainEqual(expect.objectContaining({ ref: tab, body_chars: 1_000 }));
    const full = await as(t, "alice", (ctx) => adapter.get(ctx, { ref, full: true }));
    expect(full.tabs).toContainEqual(expect.objectContaining({ ref: tab, body: "x".repeat(1_000) }));

    const tabCompact = await as(t, "alice", (ctx) => adapter.get(ctx, { ref: tab, full: false }));
    expect(tabCompact).not.toHaveProperty("body");
    expect((tabCompact.preview as string).length).toBeLessThan(300);
    expect(await as(t, "alice", (ctx) => adapter.get(ctx, { ref: tab, full: true }))).toMatchObject({ body: "x".repeat(1_000), document: ref });

    const thread = await createThread(t, "alice", { document: ref, body: "y".repeat(5_000) });
    const threadCompact = await as(t, "alice", (ctx) => adapter.get(ctx, { ref: thread, full: false }));
    expect(threadCompact.comments).toEqual([expect.objectContaining({ body_truncated: true })]);
    expect(((threadCompact.comments as { body: string }[])[0]!.body).length).toBeLessThanOrEqual(1_000);
    const threadFull = await as(t, "alice", (ctx) => adapter.get(ctx, { ref: thread, full: true }));
    expect((threadFull.comments as { body: string }[])[0]!.body).toBe("y".repeat(5_000));
  });

  it("replies in a thread and resolves it once; resolving again is a no-op that says so", async () => {
    const ref = await createDoc(t, "alice", { title: "Discussion test" });
    const thread = await createThread(t, "alice", { document: ref, body: "First?" });
    const reply = await as(t, "alice", (ctx) => adapter.action(ctx, { action: action("reply_comment"), ref: thread, payload: { body: "Second." } }));
    expect(reply).toMatchObject({ thread, reopened: false });
    expect(reply.ref).toMatch(/^docs:comment:cmt_/);
    expect(await as(t, "alice", (ctx) => adapter.get(ctx, { ref: reply.ref as string, full: false }))).toMatchObject({ body: "Second.", thread, document: ref });
    const comments = await as(t, "alice", (ctx) => adapter.list(ctx, { kind: "docs.comment", filter: { thread }, after: null, limit: 10 }));
    expect(comments.items.map((i) => i.label)).toEqual(["alice: First?", "alice: Second."]);

    const resolved = await as(t, "alice", (ctx) => adapter.action(ctx, { action: action("resolve_thread"), ref: thread, payload: { resolution_note: "Settled." } }));
    expect(resolved).toMatchObject({ status: "resolved", changed: true, resolved_by: t.users.alice!.email, resolution_note: "Settled." });
    const again = await as(t, "bob", (ctx) => adapter.action(ctx, { action: action("resolve_thread"), ref: thread, payload: {} })).catch((e) => e);
    expect(again).toMatchObject({ code: "not_found" }); // bob was never shared this document
    const twice = await as(t, "alice", (ctx) => adapter.action(ctx, { action: action("resolve_thread"), ref: thread, payload: {} }));
    expect(twice).toMatchObject({ status: "resolved", changed: false, resolution_note: "Settled." });
    expect(twice.message).toMatch(/^Already resolved by .* nothing changed\.$/);
    expect(await as(t, "alice", (ctx) => adapter.get(ctx, { ref: thread, full: false }))).toMatchObject({ status: "resolved", resolution_note: "Settled." });

    // A reply reopens a resolved thread.
    const late = await as(t, "alice", (ctx) => adapter.action(ctx, { action: action("reply_comment"), ref: thread, payload: { body: "Actually, one more thing." } }));
    expect(late).toMatchObject({ reopened: true, thread_status: "open" });
    expect(await as(t, "alice", (ctx) => adapter.get(ctx, { ref: thread, full: false }))).toMatchObject({ status: "open", resolved_by: null, comment_count: 3 });
  });

  it("exports each format to a stored file and returns a download URL, never the bytes", async () => {
    const ref = await createDoc(t, "alice", { title: `Tom & Jerry's <plan>`, shared_with: [t.users.bob!.email] });
    const [firstTab] = (await as(t, "alice", (ctx) => adapter.get(ctx, { ref, full: false }))).tabs as { ref: string }[];
    await as(t, "alice", (ctx) => adapter.upsert(ctx, { kind: "docs.tab", ref: firstTab!.ref, fields: { title: "Intro", body: "Use <b>bold</b> & \"quotes\"." } }));
    await createTab(t, "alice", ref, "Next", "Then **ship**.");
    const run = (format: string, who = "alice") => as(t, who, (ctx) => adapter.action(ctx, { action: action("export"), ref, payload: { format } }));

    const expected = {
      markdown: ["tom-jerry-s-plan.md", "text/markdown; charset=utf-8", `# Tom & Jerry's <plan>\n\n## Intro\n\nUse <b>bold</b> & "quotes".\n\n## Next\n\nThen **ship**.\n`],
      text: ["tom-jerry-s-plan.txt", "text/plain; charset=utf-8", `Tom & Jerry's <plan>\n====================\n\nIntro\n-----\n\nUse <b>bold</b> & "quotes".\n\nNext\n----\n\nThen **ship**.\n`],
    } as const;
    for (const [format, [name, contentType, content]] of Object.entries(expected)) {
      const out = await run(format);
      expect(out).toMatchObject({ name, content_type: contentType, encoding: "url", url: expect.stringMatching(/^http:\/\/x\/files\/fil_/), expires_at: expect.any(String) });
      expect(out).not.toHaveProperty("bytes");
      expect(JSON.stringify(out)).not.toContain("quotes");
      const fileId = (out.file_ref as string).replace("docs:export:", "");
      const stored = delivery.files.get(fileId)!;
      expect(stored).toMatchObject({ namespace: "docs", name, contentType, ownerUserId: t.users.alice!.userId });
      expect(new TextDecoder().decode(stored.bytes)).toBe(content);
      expect(out.size).toBe(stored.bytes.length);
      expect(delivery.urls.at(-1)).toEqual({ fileId, name });
    }

    const html = await run("html");
    const htmlText = new TextDecoder().decode(delivery.files.get((html.file_ref as string).replace("docs:export:", ""))!.bytes);
    expect(html).toMatchObject({ name: "tom-jerry-s-plan.html", content_type: "text/html; charset=utf-8", encoding: "url" });
    expect(htmlText).toContain("<h1>Tom &amp; Jerry&#39;s &lt;plan&gt;</h1>");
    expect(htmlText).toContain("<p>Use &lt;b&gt;bold&lt;/b&gt; &amp; &quot;quotes&quot;.</p>");
    expect(htmlText).toContain("<p>Then <strong>ship</strong>.</p>");
    expect(htmlText).not.toContain("<b>");

    // The export ref gives its owner a fresh link later; to anyone else it does not exist.
    const again = await as(t, "alice", (ctx) => adapter.get(ctx, { ref: html.file_ref as string, full: false }));
    expect(again).toMatchObject({ format: "html", document: ref, download: { encoding: "url" } });
    await expect(as(t, "bob", (ctx) => adapter.get(ctx, { ref: html.file_ref as string, full: false }))).rejects.toMatchObject({ code: "not_found" });
    const exports = await as(t, "alice", (ctx) => adapter.list(ctx, { kind: "docs.export", filter: { document: ref }, after: null, limit: 10 }));
    expect(exports.items).toHaveLength(3);
    // Bob may read the shared document, so he may export it; the file is his own.
    const bobs = await run("markdown", "bob");
    expect(delivery.files.get((bobs.file_ref as string).replace("docs:export:", ""))!.ownerUserId).toBe(t.users.bob!.userId);
  });

  it("get_object of a document (its reads asked at once) answers exactly what loading it and presenting it does", async () => {
    const ref = await createDoc(t, "alice", { title: "Answer parity", shared_with: [t.users.bob!.email, t.users.sam!.email] });
    await createTab(t, "alice", ref, "Second", "More text.");
    await createThread(t, "alice", { document: ref, body: "One open thread" });
    for (const who of ["alice", "bob"]) {
      for (const full of [false, true]) {
        const fast = await as(t, who, (ctx) => adapter.get(ctx, { ref, full }));
        const stepwise = await as(t, who, async (ctx) => documentKind.present!(ctx, await documentKind.load!(ctx, ref), full));
        expect(fast).toEqual(stepwise);
        expect(fast).toMatchObject({ owner: t.users.alice!.email, shared_with: [t.users.bob!.email, t.users.sam!.email], threads: { open: 1, resolved: 0 } });
      }
    }
  });

  it("applies the document's ACL to the document and everything in it", async () => {
    const secret = await createDoc(t, "alice", { title: "Alice private" });
    const secretThread = await createThread(t, "alice", { document: secret, body: "private note" });
    const shared = await createDoc(t, "alice", { title: "Team shared", shared_with: [t.users.bob!.email] });
    const sharedThread = await createThread(t, "alice", { document: shared, body: "Bob, thoughts?" });

    for (const ref of [secret, secretThread]) {
      await expect(as(t, "bob", (ctx) => adapter.get(ctx, { ref, full: false }))).rejects.toMatchObject({ code: "not_found" });
    }
    await expect(as(t, "bob", (ctx) => adapter.action(ctx, { action: action("reply_comment"), ref: secretThread, payload: { body: "hi" } }))).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(as(t, "bob", (ctx) => adapter.delete(ctx, { ref: secret }))).rejects.toMatchObject({ code: "not_found" });
    const bobSees = await as(t, "bob", (ctx) => adapter.list(ctx, { kind: "docs.document", filter: {}, after: null, limit: 100 }));
    expect(bobSees.items.map((i) => i.ref)).toContain(shared);
    expect(bobSees.items.map((i) => i.ref)).not.toContain(secret);

    // Shared: bob reads, edits, replies, resolves…
    expect(await as(t, "bob", (ctx) => adapter.get(ctx, { ref: shared, full: false }))).toMatchObject({ title: "Team shared", owner: t.users.alice!.email });
    const reply = await as(t, "bob", (ctx) => adapter.action(ctx, { action: action("reply_comment"), ref: sharedThread, payload: { body: "Looks good." } }));
    expect(await as(t, "alice", (ctx) => adapter.get(ctx, { ref: reply.ref as string, full: false }))).toMatchObject({ author: t.users.bob!.email });
    await as(t, "bob", (ctx) => adapter.upsert(ctx, { kind: "docs.document", ref: shared, fields: { status: "review" } }));
    // …but neither deletes nor re-shares.
    await expect(as(t, "bob", (ctx) => adapter.delete(ctx, { ref: shared }))).rejects.toMatchObject({ code: "realm_denied" });
    await expect(
      as(t, "bob", (ctx) => adapter.upsert(ctx, { kind: "docs.document", ref: shared, fields: { shared_with: { add: [t.users.sam!.email] } } })),
    ).rejects.toMatchObject({ code: "realm_denied" });

    // An actor acting for bob reaches what bob reaches, and is recorded as such.
    const actor: Principal = { type: "actor", actorId: "act_test", grantorId: t.users.bob!.userId, actorKind: "hosted_agent" };
    const byAgent = await as(t, actor, (ctx) => adapter.action(ctx, { action: action("reply_comment"), ref: sharedThread, payload: { body: "Drafted by the agent." } }));
    expect(await as(t, "alice", (ctx) => adapter.get(ctx, { ref: byAgent.ref as string, full: false }))).toMatchObject({ author: t.users.bob!.email, via_actor: "act_test" });
    await expect(as(t, actor, (ctx) => adapter.get(ctx, { ref: secret, full: false }))).rejects.toMatchObject({ code: "not_found" });

    // The owner shares and unshares; strangers are refused by name.
    const after = await as(t, "alice", (ctx) => adapter.upsert(ctx, { kind: "docs.document", ref: shared, fields: { shared_with: { add: [t.users.sam!.userId], remove: [t.users.bob!.email] } } }));
    expect(after.object.shared_with).toEqual([t.users.sam!.email]);
    await expect(as(t, "bob", (ctx) => adapter.get(ctx, { ref: shared, full: false }))).rejects.toMatchObject({ code: "not_found" });
    await expect(
      as(t, "alice", (ctx) => adapter.upsert(ctx, { kind: "docs.document", ref: shared, fields: { shared_with: ["stranger@elsewhere.test"] } })),
    ).rejects.toMatchObject({ code: "invalid_input", details: { unknown: ["stranger@elsewhere.test"] } });

    // The owner deletes, and everything in the document goes with it.
    expect(await as(t, "alice", (ctx) => adapter.delete(ctx, { ref: shared }))).toEqual({ ref: shared, deleted: true });
    for (const ref of [shared, sharedThread, reply.ref as string]) {
      await expect(as(t, "alice", (ctx) => adapter.get(ctx, { ref, full: false }))).rejects.toMatchObject({ code: "not_found" });
    }
  });

  it("answers not_found for another tenant's objects, even to that tenant's owner", async () => {
    const other = await makeTenant();
    const ref = await createDoc(t, "alice", { title: "Tenant A only" });
    const thread = await createThread(t, "alice", { document: ref, body: "A only" });
    for (const r of [ref, thread]) await expect(as(other, "alice", (ctx) => adapter.get(ctx, { ref: r, full: false }))).rejects.toMatchObject({ code: "not_found" });
    // Even a user id that owns the row, presented in another tenant's context.
    const sameUserOtherTenant = { ...other, tenantId: other.tenantId, users: t.users };
    await expect(as(sameUserOtherTenant, "alice", (ctx) => adapter.get(ctx, { ref, full: false }))).rejects.toMatchObject({ code: "not_found" });
    await expect(as(sameUserOtherTenant, "alice", (ctx) => adapter.delete(ctx, { ref }))).rejects.toMatchObject({ code: "not_found" });
    const found = await as(other, "alice", (ctx) => adapter.search(ctx, { kind: "docs.document", query: "Tenant A only", filter: {}, after: null, limit: 10 }));
    expect(found.items).toEqual([]);
  });

  it("rejects malformed refs and refs of the wrong kind as invalid_ref", async () => {
    const ref = await createDoc(t, "alice", { title: "Ref test" });
    const id = ref.split(":")[2]!;
    for (const bad of ["garbage", "docs:document:nope", "docs:document:doc_short", "memory:item:mem_aaaaaaaaaaaaaaaaaaaa", "docs:folder:doc_aaaaaaaaaaaaaaaaaaaa", `docs:document:${id}:extra`]) {
      await expect(as(t, "alice", (ctx) => adapter.get(ctx, { ref: bad, full: false })), bad).rejects.toMatchObject({ code: "invalid_ref" });
    }
    await expect(as(t, "alice", (ctx) => adapter.action(ctx, { action: action("reply_comment"), ref, payload: { body: "x" } }))).rejects.toMatchObject({
      code: "invalid_ref",
    });
    await expect(as(t, "alice", (ctx) => adapter.upsert(ctx, { kind: "docs.tab", ref, fields: { title: "x" } }))).rejects.toMatchObject({ code: "invalid_ref" });
    await expect(as(t, "alice", (ctx) => adapter.get(ctx, { ref: "docs:document:doc_aaaaaaaaaaaaaaaaaaaa", full: false }))).rejects.toMatchObject({ code: "not_found" });
  });

  it("resolves selectors to one ref, or to choices when several match — never a guess", async () => {
    const p = await makeTenant();
    const weekly1 = await createDoc(p, "alice", { title: "Weekly notes" });
    const weekly2 = await createDoc(p, "alice", { title: "Weekly notes", status: "review" });
    const weeklyArchive = await createDoc(p, "alice", { title: "Weekly notes archive" });
    const bobs = await createDoc(p, "bob", { title: "Weekly notes", shared_with: [p.users.alice!.email] });
    const resolve = (kind: string, selector: Record<string, string>) => as(p, "alice", (ctx) => adapter.resolve(ctx, { kind, selector }));

    const ambiguous = await resolve("docs.document", { title: "weekly NOTES" });
    expect("choices" in ambiguous && ambiguous.choices.map((c) => c.ref).sort()).toEqual([weekly1, weekly2, bobs].sort());
    expect(await resolve("docs.document", { title: "Weekly notes", status: "review" })).toEqual({ ref: weekly2 });
    expect(await resolve("docs.document", { title: "Weekly notes", author: p.users.bob!.email })).toEqual({ ref: bobs });
    expect(await resolve("docs.document", { title: "archive" })).toEqual({ ref: weeklyArchive });
    await expect(resolve("docs.document", { title: "Nothing like it" })).rejects.toMatchObject({ code: "not_found" });
    await expect(resolve("docs.document", { color: "blue" })).rejects.toMatchObject({ code: "invalid_input" });

    const tab = await createTab(p, "alice", weekly1, "Decisions", "We pick option B.\nWe drop option C.");
    expect(await resolve("docs.tab", { title: "decisions" })).toEqual({ ref: tab });
    const b = await createThread(p, "alice", { document: weekly1, quote: "option B", body: "Why B?" });
    const c = await createThread(p, "alice", { document: weekly1, quote: "option C", body: "Why drop C?" });
    expect(await resolve("docs.comment_thread", { quote: "Option B" })).toEqual({ ref: b });
    const both = await resolve("docs.comment_thread", { quote: "option", document: weekly1 });
    expect("choices" in both && both.choices.map((x) => x.ref)).toEqual([b, c]);
  });
});

describe("docs files (host_file)", () => {
  const bytesOf = (text: string) => new TextEncoder().encode(text);
  const host = (t: TestTenant, who: string | Principal, name: string, text: string, contentType = "text/plain") =>
    as(t, who, (ctx) => adapter.hostFile(ctx, { name, contentType, bytes: bytesOf(text) }));
  const get = (t: TestTenant, who: string, ref: string) => as(t, who, (ctx) => adapter.get(ctx, { ref, full: false }));
  const patch = (t: TestTenant, who: string, ref: string, fields: Record<string, unknown>) => as(t, who, (ctx) => adapter.upsert(ctx, { kind: "docs.file", ref, fields }));

  it("stores the bytes through lib/delivery as the caller's file and returns a docs:file ref", async () => {
    const t = await makeTenant();
    const hosted = await host(t, "alice", "notes.txt", "Ship in May.\n");
    expect(hosted.ref).toBe(`docs:file:${hosted.file_id}`);
    expect(hosted.file_id).toMatch(/^fil_[0-9a-z]{20}$/);
    const stored = delivery.files.get(hosted.file_id)!;
    expect(stored).toMatchObject({ namespace: "docs", name: "notes.txt", contentType: "text/plain", ownerUserId: t.users.alice!.userId });
    expect(new TextDecoder().decode(stored.bytes)).toBe("Ship in May.\n");

    // An agent's upload is its grantor's file, and says which agent put it there.
    const actor: Principal = { type: "actor", actorId: "act_uploader", grantorId: t.users.bob!.userId, actorKind: "hosted_agent" };
    const byAgent = await host(t, actor, "agent.csv", "a,b\n1,2\n", "text/csv");
    expect(delivery.files.get(byAgent.file_id)!.ownerUserId).toBe(t.users.bob!.userId);
    expect(await get(t, "bob", byAgent.ref)).toMatchObject({ owner: t.users.bob!.email, uploaded_via_actor: "act_uploader", content_type: "text/csv" });

    // A name that cannot be a file name is refused before anything is stored.
    const before = delivery.files.size;
    await expect(host(t, "alice", "two\nlines.txt", "x")).rejects.toMatchObject({ code: "invalid_input" });
    expect(delivery.files.size).toBe(before);
    await expect(as(t, "alice", (ctx) => adapter.upsert(ctx, { kind: "docs.file", ref: null, fields: { name: "x.txt" } }))).rejects.toMatchObject({
      code: "invalid_input",
    });
  });

  it("gets a file as its details and a fresh download URL, never the bytes", async () => {
    const t = await makeTenant();
    const hosted = await host(t, "alice", "secret-plan.md", "# The secret plan\n");
    const got = await get(t, "alice", hosted.ref);
    expect(got).toMatchObject({
      ref: hosted.ref,
      kind: "docs.file",
      name: "secret-plan.md",
      content_type: "text/plain",
      size: 18,
      owner: t.users.alice!.email,
      document: null,
      download: { encoding: "url", url: `http://x/files/${hosted.file_id}?sig=test`, expires_at: expect.any(String) },
    });
    expect(got).not.toHaveProperty("download_note");
    expect(JSON.stringify(got)).not.toContain("The secret plan");
    expect(delivery.urls.at(-1)).toEqual({ fileId: hosted.file_id, name: "secret-plan.md", ref: hosted.ref });
    // A file ref is not an export ref, even with the same id shape.
    await expect(get(t, "alice", `docs:export:${hosted.file_id}`)).rejects.toMatchObject({ code: "not_found" });
  });

  it("lists the caller's files newest first, page by page", async () => {
    const t = await makeTenant();
    const refs: string[] = [];
    // Files sort by upload time (ties by id): each upload a second after the last, on the call's own clock (ctx.now).
    const start = Date.now();
    for (let i = 0; i < 5; i++) {
      const upload = { name: `file-${i}.txt`, contentType: "text/plain", bytes: bytesOf(`content ${i}`) };
      refs.push((await as(t, "alice", (ctx) => adapter.hostFile(ctx, upload), { now: new Date(start + i * 1000) })).ref);
    }
    await host(t, "bob", "bobs.txt", "not alice's");
    const pages = await allPages(t, "alice", "docs.file", {}, 2);
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(pages.flat()).toEqual([...refs].reverse());
    const first = await as(t, "alice", (ctx) => adapter.list(ctx, { kind: "docs.file", filter: {}, after: null, limit: 1 }));
    expect(first.items[0]).toMatchObject({ kind: "docs.file", label: "file-4.txt", summary: expect.stringContaining("not attached") });
    // A cursor from another kind's list is refused.
    const doc = await createDoc(t, "alice", { title: "Cursor source" });
    await createDoc(t, "alice", { title: "Cursor source 2" });
    const docCursor = (await as(t, "alice", (ctx) => adapter.list(ctx, { kind: "docs.document", filter: {}, after: null, limit: 1 }))).next;
    await expect(as(t, "alice", (ctx) => adapter.list(ctx, { kind: "docs.file", filter: {}, after: docCursor, limit: 1 }))).rejects.toMatchObject({ code: "invalid_cursor" });
    await expect(as(t, "alice", (ctx) => adapter.list(ctx, { kind: "docs.file", filter: { owner: "me" }, after: null, limit: 1 }))).rejects.toMatchObject({ code: "invalid_input" });
    expect((await as(t, "alice", (ctx) => adapter.list(ctx, { kind: "docs.file", filter: { document: doc }, after: null, limit: 10 }))).items).toEqual([]);
  });

  it("attaches a file to a document the caller can edit, renames and detaches it", async () => {
    const t = await makeTenant();
    const doc = await createDoc(t, "alice", { title: "Launch" });
    const bobsPrivate = await createDoc(t, "bob", { title: "Bob only" });
    const hosted = await host(t, "alice", "budget.csv", "q,amount\n");

    const attached = await patch(t, "alice", hosted.ref, { document: doc });
    expect(attached).toMatchObject({ ref: hosted.ref, created: false, object: { document: doc, document_title: "Launch", name: "budget.csv" } });
    const listed = await as(t, "alice", (ctx) => adapter.list(ctx, { kind: "docs.file", filter: { document: doc }, after: null, limit: 10 }));
    expect(listed.items.map((i) => [i.ref, i.summary])).toEqual([[hosted.ref, expect.stringContaining("attached to “Launch”")]]);

    // A document the caller cannot see does not exist for them.
    await expect(patch(t, "alice", hosted.ref, { document: bobsPrivate })).rejects.toMatchObject({ code: "not_found" });
    await expect(patch(t, "alice", hosted.ref, { document: "docs:tab:tab_aaaaaaaaaaaaaaaaaaaa" })).rejects.toMatchObject({ code: "invalid_ref" });
    // Only the name and the attachment change.
    await expect(patch(t, "alice", hosted.ref, { size: 1 })).rejects.toMatchObject({ code: "invalid_input" });
    await expect(patch(t, "alice", hosted.ref, { content_type: "image/png" })).rejects.toMatchObject({ code: "invalid_input" });

    expect((await patch(t, "alice", hosted.ref, { name: "budget-2026.csv" })).object).toMatchObject({ name: "budget-2026.csv", document: doc });
    expect((await patch(t, "alice", hosted.ref, { document: null })).object).toMatchObject({ document: null, document_title: null });
    expect((await as(t, "alice", (ctx) => adapter.list(ctx, { kind: "docs.file", filter: { document: doc }, after: null, limit: 10 }))).items).toEqual([]);

    // Deleting the document leaves an attached file with its uploader, unattached.
    await patch(t, "alice", hosted.ref, { document: doc });
    await as(t, "alice", (ctx) => adapter.delete(ctx, { ref: doc }));
    expect(await get(t, "alice", hosted.ref)).toMatchObject({ document: null, name: "budget-2026.csv" });
  });

  it("shows a file attached to a shared document to its readers, with a link bound to the file's ref; only the uploader changes or deletes it", async () => {
    const t = await makeTenant();
    const shared = await createDoc(t, "alice", { title: "Team plan", shared_with: [t.users.bob!.email] });
    const hosted = await host(t, "alice", "plan.pdf", "%PDF-1.7 alice's bytes", "application/pdf");

    // Not attached yet: only alice knows it exists.
    await expect(get(t, "bob", hosted.ref)).rejects.toMatchObject({ code: "not_found" });
    await patch(t, "alice", hosted.ref, { document: shared });

    const minted = delivery.urls.length;
    const seen = await get(t, "bob", hosted.ref);
    expect(seen).toMatchObject({ name: "plan.pdf", owner: t.users.alice!.email, document: shared, download: { encoding: "url" } });
    // The link is bound to the file's ref, so redeeming it asks this realm again whether bob may still read it.
    expect(delivery.urls.slice(minted)).toEqual([{ fileId: hosted.ref.split(":")[2], name: "plan.pdf", ref: hosted.ref }]);
    expect(JSON.stringify(seen)).not.toContain("alice's bytes");
    const bobLists = await as(t, "bob", (ctx) => adapter.list(ctx, { kind: "docs.file", filter: { document: shared }, after: null, limit: 10 }));
    expect(bobLists.items.map((i) => i.ref)).toEqual([hosted.ref]);
    // Bob's own files are his uploads only.
    expect((await as(t, "bob", (ctx) => adapter.list(ctx, { kind: "docs.file", filter: {}, after: null, limit: 10 }))).items).toEqual([]);

    await expect(as(t, "bob", (ctx) => adapter.delete(ctx, { ref: hosted.ref }))).rejects.toMatchObject({ code: "realm_denied" });
    await expect(patch(t, "bob", hosted.ref, { name: "mine-now.pdf" })).rejects.toMatchObject({ code: "realm_denied" });
    await expect(patch(t, "bob", hosted.ref, { document: null })).rejects.toMatchObject({ code: "realm_denied" });
    // Sam cannot read the document, so the file does not exist for him.
    await expect(get(t, "sam", hosted.ref)).rejects.toMatchObject({ code: "not_found" });
    await expect(as(t, "sam", (ctx) => adapter.delete(ctx, { ref: hosted.ref }))).rejects.toMatchObject({ code: "not_found" });

    // Unsharing the document hides the file again.
    await as(t, "alice", (ctx) => adapter.upsert(ctx, { kind: "docs.document", ref: shared, fields: { shared_with: [] } }));
    await expect(get(t, "bob", hosted.ref)).rejects.toMatchObject({ code: "not_found" });

    expect(await as(t, "alice", (ctx) => adapter.delete(ctx, { ref: hosted.ref }))).toEqual({ ref: hosted.ref, deleted: true });
    await expect(get(t, "alice", hosted.ref)).rejects.toMatchObject({ code: "not_found" });
  });

  it("answers not_found for another tenant's file, even for the same user id", async () => {
    const t = await makeTenant();
    const other = await makeTenant();
    const hosted = await host(t, "alice", "tenant-a.txt", "A only");
    const sameUserOtherTenant = { ...other, users: t.users };
    for (const tenant of [other, sameUserOtherTenant]) {
      await expect(get(tenant, "alice", hosted.ref)).rejects.toMatchObject({ code: "not_found" });
      await expect(as(tenant, "alice", (ctx) => adapter.delete(ctx, { ref: hosted.ref }))).rejects.toMatchObject({ code: "not_found" });
      await expect(patch(tenant, "alice", hosted.ref, { name: "stolen.txt" })).rejects.toMatchObject({ code: "not_found" });
    }
    expect((await as(sameUserOtherTenant, "alice", (ctx) => adapter.list(ctx, { kind: "docs.file", filter: {}, after: null, limit: 10 }))).items).toEqual([]);
    expect(await get(t, "alice", hosted.ref)).toMatchObject({ name: "tenant-a.txt" });
  });

  it("rejects docs.file refs with a malformed id as invalid_ref", async () => {
    const t = await makeTenant();
    const { file_id } = await host(t, "alice", "x.txt", "x");
    for (const bad of ["docs:file:fil_short", "docs:file:doc_aaaaaaaaaaaaaaaaaaaa", "docs:file:FIL_AAAAAAAAAAAAAAAAAAAA", `docs:file:${file_id}:extra`, "docs:file:"]) {
      await expect(get(t, "alice", bad), bad).rejects.toMatchObject({ code: "invalid_ref" });
      await expect(as(t, "alice", (ctx) => adapter.delete(ctx, { ref: bad })), bad).rejects.toMatchObject({ code: "invalid_ref" });
    }
    await expect(patch(t, "alice", `docs:document:${file_id.replace("fil_", "doc_")}`, { name: "y.txt" })).rejects.toMatchObject({ code: "invalid_ref" });
  });
});
