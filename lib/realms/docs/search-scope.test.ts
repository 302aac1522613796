// A docs search matches its words against its own tenant's tabs and comments only. A term matches "the title, or
// any tab" (documents) and "the quote, or any comment" (threads), as `… or exists (select … from docs_tabs …)`;
// correlated on the outer row's tenant, the planner ran that EXISTS as one hashed pass over the whole table while it
// thought the table small: every tenant's tabs and comments, each matched with ILIKE, on every search (more than
// half of the search statements' time in bench:load with 11 tenants, growing with every tenant). Each statement of
// a real search is explained here, as a custom and as a generic plan, with the values it was sent: every scan of
// docs_tabs or docs_comments that matches the words is held to one tenant (the call's, or the row's it belongs to).
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { onStatement } from "@/db/client";
import { docsComments, docsDocuments, docsTabs, docsThreads } from "@/db/schema/docs";
import { dispatch } from "@/lib/tools/dispatch";
import { call, makeTenant, type TestTenant } from "@/test-support";
import { refs } from "./refs";

type PlanNode = {
  "Node Type": string;
  "Relation Name"?: string;
  Filter?: string;
  "Index Cond"?: string;
  "Recheck Cond"?: string;
  Plans?: PlanNode[];
};
type RawClient = { query(text: string, values?: readonly unknown[]): Promise<{ rows: Record<string, unknown>[] }> };

/** A node's own conditions, with those of the index scan under a bitmap heap scan. */
const conditionsOf = (n: PlanNode): string =>
  [n.Filter, n["Index Cond"], n["Recheck Cond"], ...(n["Node Type"] === "Bitmap Heap Scan" ? (n.Plans ?? []).map(conditionsOf) : [])].filter(Boolean).join(" AND ");

/** Every scan of `tables` that matches the search's words (ILIKE, `~~*`), with its conditions. */
function termScans(node: PlanNode, tables: string[]): { table: string; conditions: string }[] {
  const conditions = conditionsOf(node);
  const own = /Scan/.test(node["Node Type"]) && node["Relation Name"] && tables.includes(node["Relation Name"]) && conditions.includes("~~*") ? [{ table: node["Relation Name"], conditions }] : [];
  return [...own, ...(node.Plans ?? []).flatMap((c) => termScans(c, tables))];
}

let mine: TestTenant;
let other: TestTenant;
/** The refs of what each tenant's search should find: its document and its thread. */
let mineRefs: string[];
const OTHERS_TABS = 300;
const OTHERS_COMMENTS = 300;

/** A document titled `title` with `tabs` tabs and one thread with `comments` comments, every text holding "budget". */
async function seedDocs(t: TestTenant, owner: string, title: string, tabs: number, comments: number): Promise<string[]> {
  const documentId = refs.newId("document");
  await t.db.insert(docsDocuments).values({ id: documentId, tenantId: t.tenantId, title, ownerId: owner });
  await t.db.insert(docsTabs).values(Array.from({ length: tabs }, (_, i) => ({ id: refs.newId("tab"), tenantId: t.tenantId, documentId, title: `Tab ${i + 1}`, position: i + 1, body: `The budget, part ${i + 1}.` })));
  const threadId = refs.newId("thread");
  await t.db.insert(docsThreads).values({ id: threadId, tenantId: t.tenantId, documentId, quote: "plans", createdBy: owner });
  await t.db.insert(docsComments).values(Array.from({ length: comments }, (_, i) => ({ id: refs.newId("comment"), tenantId: t.tenantId, threadId, authorId: owner, body: `About the budget (${i + 1}).` })));
  return [refs.make("document", documentId), refs.make("thread", threadId)];
}

beforeAll(async () => {
  mine = await makeTenant({ alice: "owner" });
  other = await makeTenant({ olga: "owner" });
  mineRefs = await seedDocs(mine, mine.users.alice!.userId, "Plans", 2, 1);
  // Its title holds the word too: only the search's tenant (its own filter) keeps this document out.
  await seedDocs(other, other.users.olga!.userId, "Budget plans", OTHERS_TABS, OTHERS_COMMENTS);
  await mine.db.execute(sql`analyze docs_tabs, docs_comments, docs_documents, docs_threads`);
});

afterAll(async () => {
  await other.db.delete(docsDocuments).where(eq(docsDocuments.tenantId, other.tenantId));
});

describe("a docs search reads only its own tenant's rows", () => {
  it("finds its tenant's matches, and matches no other tenant's tabs or comments against its words", async () => {
    const sent: { sql: string; values: readonly unknown[] }[] = [];
    const stop = onStatement((sql, values) => {
      if (/docs_tabs|docs_comments/.test(sql) && values) sent.push({ sql, values });
    });
    // Run enough times for a prepared statement's generic plan (PostgreSQL's sixth run) to be the one explained too.
    let result: { items: { label: string; ref: string }[] } | undefined;
    try {
      for (let i = 0; i < 7; i++) result = (await dispatch(call(mine.users.alice!), "search_objects", { namespace: "docs", query: "budget" })) as { items: { label: string; ref: string }[] };
    } finally {
      stop();
    }
    expect(result!.items.map((i) => i.label)).toEqual(expect.arrayContaining(["Plans"]));
    // Exactly its own document and thread: the other tenant's, matching the same words, never.
    expect(result!.items.map((i) => i.ref).sort()).toEqual([...mineRefs].sort());
    const statements = [...new Map(sent.map((s) => [s.sql, s])).values()];
    // The documents' and the threads' statement.
    expect(statements.length).toBeGreaterThanOrEqual(2);
    const raw = (mine.db as unknown as { $client: RawClient }).$client;
    for (const s of statements) {
      for (const mode of ["auto", "force_generic_plan"]) {
        const client = raw as RawClient & { connect?: () => Promise<RawClient & { release(): void }> };
        // One connection for the setting and the statement (a pool hands out any).
        const conn = client.connect ? await client.connect() : null;
        const on = conn ?? client;
        try {
          await on.query(`set plan_cache_mode = ${mode}`);
          await on.query(`prepare search_scope_probe as ${s.sql}`);
          const values = s.values.map((v) => (v === null ? "null" : `'${String(v).replaceAll("'", "''")}'`));
          const r = await on.query(`explain (format json) execute search_scope_probe(${values.join(", ")})`);
          const plan = r.rows[0]!["QUERY PLAN"] as { Plan: PlanNode }[] | string;
          const root = (typeof plan === "string" ? (JSON.parse(plan) as { Plan: PlanNode }[]) : plan)[0]!.Plan;
          const matched = termScans(root, ["docs_tabs", "docs_comments"]);
          expect(matched.length).toBeGreaterThan(0);
          // Each is held to one tenant: the call's (a value), or the row it belongs to (a subquery per matched row).
          for (const scan of matched) expect(scan.conditions, `${scan.table} (${mode} plan) of: ${s.sql.slice(0, 80)}…`).toMatch(/\btenant_id = /);
        } finally {
          await on.query("deallocate search_scope_probe").catch(() => {});
          await on.query("reset plan_cache_mode");
          conn?.release();
        }
      }
    }
  });
});
