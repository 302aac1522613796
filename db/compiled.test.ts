import { DrizzleQueryError, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { dbKind, getDb, onStatement } from "./client";
import type { QueryBuilder } from "drizzle-orm/pg-core";
import { compiled, compiledSelect, compiledSelectShapes, compiledVariants, type Placeholders } from "./compiled";
import { memberships, tenants, users } from "./schema";
import { newId } from "@/lib/ids";

describe("the drizzle instance", () => {
  it("is given no schema: a transaction and a savepoint build no relational query builders", async () => {
    // With a schema, drizzle builds a query builder per table (44) for every transaction and savepoint, on every
    // tool call; nothing here uses `db.query.<table>` (the Db type has none, so such a use fails to compile).
    const db = await getDb();
    expect(Object.keys((db as unknown as { query: object }).query)).toEqual([]);
    await db.transaction(async (tx) => {
      expect(Object.keys((tx as unknown as { query: object }).query)).toEqual([]);
      await tx.transaction(async (sp) => {
        expect(Object.keys((sp as unknown as { query: object }).query)).toEqual([]);
      });
    });
  });
});

describe("statements built once per process", () => {
  it("builds the template once and runs it with each call's values (none frozen into the text)", async () => {
    const db = await getDb();
    let builds = 0;
    const echo = compiled<"a" | "b", { a: string; b: number }>((p) => {
      builds++;
      return sql`select ${p.a}::text as a, ${p.b}::int as b`;
    });
    const texts: string[] = [];
    const stop = onStatement((s) => texts.push(s));
    try {
      expect(await echo(db, { a: "one", b: 1 })).toEqual([{ a: "one", b: 1 }]);
      expect(await echo(db, { a: "two", b: 2 })).toEqual([{ a: "two", b: 2 }]);
    } finally {
      stop();
    }
    expect(builds).toBe(1);
    expect(texts.length).toBe(2);
    expect(texts[0]).toBe(texts[1]);
    expect(texts[0]).not.toContain("one");
  });

  it("runs in the caller's transaction: it sees what the transaction set, and that ends with it", async () => {
    const db = await getDb();
    // A transaction-local setting: visible only on the transaction's own connection, until it ends.
    const set = compiled<"v">((p) => sql`select set_config('realmgate.probe', ${p.v}::text, true)`);
    const read = compiled<never, { v: string | null }>(() => sql`select current_setting('realmgate.probe', true) as v`);
    const v = `probe-${Date.now()}`;
    await db
      .transaction(async (tx) => {
        await set(tx, { v });
        expect(await read(tx, {})).toEqual([{ v }]);
        throw new Error("roll back");
      })
      .catch(() => {});
    expect((await read(db, {}))[0]!.v ?? "").not.toBe(v);
  });

  it("names a missing value instead of running without it", async () => {
    const db = await getDb();
    const one = compiled<"x">((p) => sql`select ${p.x}::int as x`);
    await expect(one(db, {} as { x: unknown })).rejects.toThrow(/placeholder "x"/);
  });

  it("builds each variant once, the first time it is asked for", async () => {
    const db = await getDb();
    const built: string[] = [];
    const stmt = compiledVariants<"upper" | "plain", "s", { s: string }>((variant, p) => {
      built.push(variant);
      return variant === "upper" ? sql`select upper(${p.s}::text) as s` : sql`select ${p.s}::text as s`;
    });
    expect(await stmt("upper")(db, { s: "a" })).toEqual([{ s: "A" }]);
    expect(await stmt("plain")(db, { s: "b" })).toEqual([{ s: "b" }]);
    expect(await stmt("upper")(db, { s: "c" })).toEqual([{ s: "C" }]);
    expect(built).toEqual(["upper", "plain"]);
  });

  it("a query-builder select: built once, each run's values, rows mapped as the builder maps them (joins, Dates)", async () => {
    const db = await getDb();
    const tenantId = newId("tnt");
    await db.insert(tenants).values({ id: tenantId, slug: `compiled-${tenantId.slice(4, 14).toLowerCase()}`, name: "Compiled select" });
    const people = [newId("usr"), newId("usr")];
    await db.insert(users).values(people.map((id, i) => ({ id, email: `${id}@compiled.test`, name: `Person ${i}` })));
    await db.insert(memberships).values({ tenantId, userId: people[0]!, role: "owner" });
    let builds = 0;
    const member = compiledSelect<"user" | "tenant", ReturnType<typeof build>>((qb, p) => build(qb, p));
    function build(qb: QueryBuilder, p: Placeholders<"user" | "tenant">) {
      builds++;
      return qb
        .select({ name: users.name, createdAt: users.createdAt, role: memberships.role, upper: sql<string>`upper(${users.name})` })
        .from(users)
        .leftJoin(memberships, sql`${memberships.userId} = ${users.id} and ${memberships.tenantId} = ${p.tenant}`)
        .where(eq(users.id, p.user));
    }
    const texts: string[] = [];
    const stop = onStatement((s) => texts.push(s));
    let rows: Awaited<ReturnType<typeof member>>[];
    try {
      rows = [await member(db, { user: people[0], tenant: tenantId }), await db.transaction((tx) => member(tx, { user: people[1], tenant: tenantId }))];
    } finally {
      stop();
    }
    expect(rows[0]).toEqual([{ name: "Person 0", createdAt: expect.any(Date), role: "owner", upper: "PERSON 0" }]);
    // The left join found nothing for the second person: the joined table's fields come back as null, as drizzle's own select gives them.
    expect(rows[1]).toEqual([{ name: "Person 1", createdAt: expect.any(Date), role: null, upper: "PERSON 1" }]);
    expect(builds).toBe(1);
    const selects = texts.filter((t) => t.startsWith("select"));
    expect(selects).toHaveLength(2);
    expect(selects[0]).toBe(selects[1]);
    expect(selects[0]).not.toContain(people[0]!);
  });

  it("query-builder selects by shape: an equal shape (a new object) reuses its statement, another shape gets its own", async () => {
    const db = await getDb();
    const tenantId = newId("tnt");
    await db.insert(tenants).values({ id: tenantId, slug: `shapes-${tenantId.slice(4, 14).toLowerCase()}`, name: "Compiled shapes" });
    const built: string[] = [];
    const stmt = compiledSelectShapes<{ upper: boolean }, "s", ReturnType<typeof build>>(build);
    function build(shape: { upper: boolean }, qb: QueryBuilder, p: Placeholders<"s">) {
      built.push(JSON.stringify(shape));
      return qb.select({ s: shape.upper ? sql<string>`upper(${p.s}::text)` : sql<string>`${p.s}::text` }).from(tenants).limit(1);
    }
    expect(await stmt({ upper: true })(db, { s: "a" })).toEqual([{ s: "A" }]);
    expect(await stmt({ upper: false })(db, { s: "b" })).toEqual([{ s: "b" }]);
    expect(await stmt({ upper: true })(db, { s: "c" })).toEqual([{ s: "C" }]);
    expect(built).toEqual(['{"upper":true}', '{"upper":false}']);
  });
});

describe("on PostgreSQL, straight to the session's client", () => {
  type Spied = { prepareQuery(...a: unknown[]): unknown };
  /** Count drizzle's prepareQuery calls on the sessions of `db` and its transactions while `fn` runs (a transaction's own BEGIN and COMMIT not counted). */
  async function countPrepares(fn: () => Promise<void>): Promise<number> {
    const db = await getDb();
    const proto = Object.getPrototypeOf((db as unknown as { session: object }).session) as Spied;
    const own = proto.prepareQuery;
    let n = 0;
    proto.prepareQuery = function (this: unknown, ...a: unknown[]) {
      if (!/^(begin|commit|rollback)$/i.test((a[0] as { sql: string }).sql.trim())) n++;
      return own.apply(this, a);
    };
    try {
      await fn();
    } finally {
      proto.prepareQuery = own;
    }
    return n;
  }

  it("asks drizzle for a statement's query once, then runs with each call's values, rows and dates as drizzle gives them", async () => {
    const db = await getDb();
    const kind = await dbKind();
    const echo = compiled<"a" | "at", { a: string; at: string }>((p) => sql`select ${p.a}::text as a, ${p.at}::timestamptz as at`);
    const pick = compiledSelect<"id", ReturnType<typeof sel>>((qb, p) => sel(qb, p));
    function sel(qb: QueryBuilder, p: Placeholders<"id">) {
      return qb.select({ id: tenants.id, createdAt: tenants.createdAt }).from(tenants).where(eq(tenants.id, p.id));
    }
    const tenantId = newId("tnt");
    await db.insert(tenants).values({ id: tenantId, slug: `direct-${tenantId.slice(4, 14).toLowerCase()}`, name: "Direct" });
    const got: unknown[] = [];
    const prepares = await countPrepares(async () => {
      for (const a of ["one", "two", "three"]) {
        got.push(await echo(db, { a, at: "2026-12-05T07:00:00Z" }));
        got.push(await db.transaction((tx) => pick(tx, { id: tenantId })));
      }
    });
    // Three runs of each: node-postgres asks drizzle once per statement; PGlite goes through drizzle each run.
    expect(prepares).toBe(kind === "postgres" ? 2 : 6);
    expect(got[0]).toEqual([{ a: "one", at: expect.stringMatching(/^2026-12-05 07:00:00\+00/) }]);
    expect(got[4]).toEqual([{ a: "three", at: expect.stringMatching(/^2026-12-05 07:00:00\+00/) }]);
    expect(got[5]).toEqual([{ id: tenantId, createdAt: expect.any(Date) }]);
  });

  it("fails as drizzle's prepared query fails: a DrizzleQueryError naming the statement, the server's error as its cause", async () => {
    const db = await getDb();
    const bad = compiled<"x">((p) => sql`select ${p.x}::int / 0 as x`);
    const err = (await bad(db, { x: 1 }).catch((e: unknown) => e)) as Error & { query?: string; params?: unknown[]; cause?: { code?: string } };
    expect(err).toBeInstanceOf(DrizzleQueryError);
    expect(err.query).toMatch(/\/ 0 as x/);
    expect(err.params).toEqual([1]);
    expect(err.cause?.code).toBe("22012"); // division_by_zero
  });
});
