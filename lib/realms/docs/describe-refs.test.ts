// The docs realm's side of the trust boundary: parseRef (syntax only), describeRefs (names, with the caller's
// authority, one query per kind), and gateRef on every document or tab an upsert links to, including the tab a
// quote names.
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { docsFiles, docsTabs, docsThreads } from "@/db/schema/docs";
import { newId } from "@/lib/ids";
import type { DeliveryPort } from "@/lib/realms/contract";
import { countingQueries, errorOf, makeTenant, realmCalls, type TestTenant, thrownCode } from "@/test-support";
import { adapter } from "./adapter";
import { manifest } from "./manifest";

/** Stores nothing anywhere: enough for export and host_file to mint their refs. */
const delivery: DeliveryPort = {
  storeFile: async (input) => ({ fileId: newId("fil"), size: input.bytes.length, sha256: "0".repeat(64) }),
  fileUrl: async (fileId) => ({ encoding: "url", url: `http://x/files/${fileId}`, expires_at: new Date(Date.now() + 60_000).toISOString() }),
  deleteFile: async () => {},
};

const { as, upsert } = realmCalls(adapter, delivery);
const action = (name: string) => manifest.actions.find((a) => a.name === name)!;

/** A document with a Timeline tab, a thread on it with a reply, an export and an attached file, all by `who`. */
async function world(tt: TestTenant, who: string, title: string, shared_with: string[] = []) {
  const doc = await upsert(tt, who, "docs.document", { title, shared_with });
  const tab = (await upsert(tt, who, "docs.tab", { document: doc.ref, title: "Timeline", body: "Beta in August, launch in October." })).ref;
  const thread = await upsert(tt, who, "docs.comment_thread", { document: doc.ref, quote: "Beta in August", body: "Beta in August is tight for the team given the holidays" });
  const reply = (await as(tt, who, (ctx) => adapter.action(ctx, { action: action("reply_comment"), ref: thread.ref, payload: { body: "Agreed, let's move it" } }))).ref as string;
  const first = (thread.object.comments as { ref: string }[])[0]!.ref;
  const exp = (await as(tt, who, (ctx) => adapter.action(ctx, { action: action("export"), ref: doc.ref, payload: { format: "markdown" } }))).file_ref as string;
  const file = (await as(tt, who, (ctx) => adapter.hostFile(ctx, { name: "plan.csv", contentType: "text/csv", bytes: new Uint8Array([97]) }))).ref;
  await upsert(tt, who, "docs.file", { document: doc.ref }, file);
  const loose = (await as(tt, who, (ctx) => adapter.hostFile(ctx, { name: "loose.txt", contentType: "text/plain", bytes: new Uint8Array([98]) }))).ref;
  return { doc: doc.ref, tab, thread: thread.ref, first, reply, exp, file, loose };
}

let t: TestTenant;
/** What the test gateRef throws when it refuses a ref (as a scoped grant would). */
let refused: string;
beforeAll(async () => {
  t = await makeTenant();
  refused = (await as(t, "alice", (ctx) => errorOf(ctx.gateRef("docs:probe", "probe")), { refuse: ["docs:probe"] })).code;
});

describe("docs manifest ref declarations", () => {
  it("declares the action payloads that hold a ref, and ref kinds on every field that links to another object", () => {
    // attach_file's document is a ref (or a title): named before gate one like any ref the call gives.
    for (const a of manifest.actions) expect(a.ref_paths, a.name).toEqual(a.name === "attach_file" ? ["document"] : []);
    const field = (kind: string, name: string) => manifest.kinds.find((k) => k.name === kind)!.fields.find((f) => f.name === name)!;
    for (const [kind, name, refKind] of [
      ["docs.tab", "document", "docs.document"],
      ["docs.comment_thread", "document", "docs.document"],
      ["docs.comment_thread", "tab", "docs.tab"],
      ["docs.comment", "thread", "docs.comment_thread"],
      ["docs.comment", "document", "docs.document"],
      ["docs.export", "document", "docs.document"],
      ["docs.file", "document", "docs.document"],
    ] as const) {
      expect(field(kind, name), `${kind}.${name}`).toMatchObject({ type: "ref", ref_kind: refKind });
    }
  });
});

describe("docs parseRef", () => {
  it("accepts every ref the adapter mints, naming its kind", async () => {
    const w = await world(t, "alice", "Parse doc");
    expect(adapter.parseRef(w.doc)).toEqual({ kind: "docs.document" });
    expect(adapter.parseRef(w.tab)).toEqual({ kind: "docs.tab" });
    expect(adapter.parseRef(w.thread)).toEqual({ kind: "docs.comment_thread" });
    expect(adapter.parseRef(w.reply)).toEqual({ kind: "docs.comment" });
    expect(adapter.parseRef(w.exp)).toEqual({ kind: "docs.export" });
    expect(adapter.parseRef(w.file)).toEqual({ kind: "docs.file" });
  });

  it("rejects half-typed refs, unknown kind segments, ids of another kind and other namespaces as invalid_ref", () => {
    for (const ref of [
      "docs:d",
      "docs:document",
      "docs:document:",
      "docs:document:doc_",
      "docs:document:doc_abc",
      "docs:doc:doc_aaaaaaaaaaaaaaaaaaaa",
      "docs:tab:doc_aaaaaaaaaaaaaaaaaaaa",
      "docs:thread:thr_AAAAAAAAAAAAAAAAAAAA",
      "board:document:doc_aaaaaaaaaaaaaaaaaaaa",
      "docs:document:doc_aaaaaaaaaaaaaaaaaaaa:tab",
      "Q3 planning",
      "",
    ]) {
      expect(thrownCode(() => adapter.parseRef(ref)), ref).toBe("invalid_ref");
    }
  });
});

describe("docs describeRefs", () => {
  it("names every kind the caller may see, one query per kind, and null for others' unshared, unknown and malformed refs", async () => {
    const mine = await world(t, "alice", "Q3 planning");
    const second = await world(t, "alice", "Hiring plan");
    const bobs = await world(t, "bob", "Bob's private notes");
    const unknown = ["docs:document:doc_zzzzzzzzzzzzzzzzzzzz", "docs:thread:thr_zzzzzzzzzzzzzzzzzzzz", "docs:file:fil_zzzzzzzzzzzzzzzzzzzz"];
    const malformed = ["docs:d", "docs:document:doc_", "docs:document:", "memory:item:mem_aaaaaaaaaaaaaaaaaaaa"];
    const asked = [...Object.values(mine), ...Object.values(second), ...Object.values(bobs), ...unknown, ...malformed];

    const { got, queries } = await as(t, "alice", async (raw) => {
      const c = countingQueries(raw);
      return { got: await adapter.describeRefs(c.ctx, asked), queries: c.queries() };
    });
    expect(queries).toBeLessThanOrEqual(6); // one per kind, whatever the number of refs
    expect(got[mine.doc]).toEqual({ kind: "docs.document", label: "Q3 planning", summary: "draft document by alice", lineage: [] });
    expect(got[mine.tab]).toEqual({ kind: "docs.tab", label: "Timeline", summary: "tab 2 of “Q3 planning”", lineage: [mine.doc] });
    expect(got[mine.thread]).toEqual({
      kind: "docs.comment_thread",
      label: "“Beta in August is tight for the team…” on Q3 planning",
      summary: "thread on “Q3 planning”",
      lineage: [mine.doc],
    });
    expect(got[mine.reply]).toEqual({ kind: "docs.comment", label: "alice: Agreed, let's move it", summary: "comment on “Q3 planning”", lineage: [mine.thread, mine.doc] });
    expect(got[mine.first]?.label).toBe("alice: Beta in August is tight for the team…");
    expect(got[mine.exp]).toMatchObject({ kind: "docs.export", label: "q3-planning.md", summary: "markdown export of “Q3 planning”" });
    expect(got[mine.file]).toEqual({ kind: "docs.file", label: "plan.csv", summary: "file attached to “Q3 planning”", lineage: [mine.doc] });
    expect(got[mine.loose]).toEqual({ kind: "docs.file", label: "loose.txt", summary: "file, not attached", lineage: [] });
    expect(got[second.thread]?.summary).toBe("thread on “Hiring plan”");
    for (const ref of [...Object.values(bobs), ...unknown, ...malformed]) expect(got[ref], ref).toBeNull();
    expect(Object.keys(got).sort()).toEqual([...new Set(asked)].sort());

    // The lineage describeRefs reports is the adapter's own.
    const lineage = await as(t, "alice", (ctx) => adapter.lineage!(ctx, { refs: [mine.tab, mine.thread, mine.reply, mine.file, mine.loose] }));
    for (const ref of [mine.tab, mine.thread, mine.reply, mine.file, mine.loose]) expect(got[ref]!.lineage, ref).toEqual(lineage[ref]);
  });

  it("follows sharing as get does: a reader sees the document and what is in it, not someone else's export", async () => {
    const w = await world(t, "alice", "Shared roadmap", [t.users.bob!.email]);
    const asked = Object.values(w);
    const got = await as(t, "bob", (ctx) => adapter.describeRefs(ctx, asked));
    for (const ref of [w.doc, w.tab, w.thread, w.reply, w.file]) expect(got[ref], ref).not.toBeNull();
    expect(got[w.exp]).toBeNull(); // an export is its maker's file
    expect(got[w.loose]).toBeNull(); // an unattached upload is its uploader's alone
    expect(got[w.thread]).toMatchObject({ summary: "thread on “Shared roadmap”" });

    await upsert(t, "alice", "docs.document", { shared_with: [] }, w.doc);
    const after = await as(t, "bob", (ctx) => adapter.describeRefs(ctx, asked));
    for (const ref of asked) expect(after[ref], ref).toBeNull();
  });
});

describe("docs gateRef", () => {
  it("gates the document a tab is created in, and writes no tab when it is refused", async () => {
    const doc = (await upsert(t, "alice", "docs.document", { title: "Gate tabs" })).ref;
    const gated: string[] = [];
    await as(t, "alice", (ctx) => adapter.upsert(ctx, { kind: "docs.tab", ref: null, fields: { document: doc, title: "Allowed" } }), { gated });
    expect(gated).toEqual([doc]);
    const { err, written } = await as(
      t,
      "alice",
      async (ctx) => {
        const err = await errorOf(adapter.upsert(ctx, { kind: "docs.tab", ref: null, fields: { document: doc, title: "Refused" } }));
        const written = await ctx.tx.select().from(docsTabs).where(and(eq(docsTabs.tenantId, t.tenantId), eq(docsTabs.title, "Refused")));
        return { err, written };
      },
      { refuse: [doc] },
    );
    expect(err).toMatchObject({ code: refused, details: { ref: doc, where: "fields.document" } });
    expect(written).toEqual([]);
  });

  it("gates the tab a thread's quote resolves to (and the document), and starts no thread when either is refused", async () => {
    const doc = (await upsert(t, "alice", "docs.document", { title: "Gate threads" })).ref;
    const tab = (await upsert(t, "alice", "docs.tab", { document: doc, title: "Risks", body: "The vendor may be late." })).ref;
    const gated: string[] = [];
    const made = await as(t, "alice", (ctx) => adapter.upsert(ctx, { kind: "docs.comment_thread", ref: null, fields: { document: doc, quote: "vendor may be late", body: "Who follows up?" } }), { gated });
    expect(made.object).toMatchObject({ tab });
    expect(gated).toEqual([doc, tab]);

    for (const [refuse, where] of [[tab, "fields.quote"], [doc, "fields.document"]] as const) {
      const { err, written } = await as(
        t,
        "alice",
        async (ctx) => {
          const err = await errorOf(adapter.upsert(ctx, { kind: "docs.comment_thread", ref: null, fields: { document: doc, quote: "vendor may be late", body: "Refused thread" } }));
          const written = await ctx.tx.select().from(docsThreads).where(and(eq(docsThreads.tenantId, t.tenantId), eq(docsThreads.documentId, doc.split(":")[2]!)));
          return { err, written };
        },
        { refuse: [refuse] },
      );
      expect(err, refuse).toMatchObject({ code: refused, details: { ref: refuse, where } });
      expect(written.map((x) => x.id)).toEqual([made.ref.split(":")[2]]); // only the allowed one
    }

    // A tab named as a ref is gated too.
    const explicit: string[] = [];
    await as(t, "alice", (ctx) => adapter.upsert(ctx, { kind: "docs.comment_thread", ref: null, fields: { document: doc, tab, body: "On the tab" } }), { gated: explicit });
    expect(explicit).toEqual([doc, tab]);
  });

  it("gates the document a file is attached to, and leaves the file unattached when it is refused", async () => {
    const doc = (await upsert(t, "alice", "docs.document", { title: "Gate files" })).ref;
    const file = (await as(t, "alice", (ctx) => adapter.hostFile(ctx, { name: "a.txt", contentType: "text/plain", bytes: new Uint8Array([1]) }))).ref;
    const { err, row } = await as(
      t,
      "alice",
      async (ctx) => {
        const err = await errorOf(adapter.upsert(ctx, { kind: "docs.file", ref: file, fields: { document: doc } }));
        const [row] = await ctx.tx.select().from(docsFiles).where(and(eq(docsFiles.tenantId, t.tenantId), eq(docsFiles.id, file.split(":")[2]!)));
        return { err, row };
      },
      { refuse: [doc] },
    );
    expect(err).toMatchObject({ code: refused, details: { ref: doc } });
    expect(row!.documentId).toBeNull();
    const gated: string[] = [];
    await as(t, "alice", (ctx) => adapter.upsert(ctx, { kind: "docs.file", ref: file, fields: { document: doc } }), { gated });
    expect(gated).toEqual([doc]);
  });
});
