// Named prepared statements (db/prepared.ts): which queries get a name, and — on PostgreSQL — that a statement
// run again on a connection is not parsed again (the server keeps one prepared statement for its text).
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { dbKind, getDb } from "./client";
import { forgetStatementNames, MAX_NAMED_STATEMENTS, withStatementName } from "./prepared";

// Test files share a process (vitest isolate: false): another file's statements may have filled the bound already.
beforeAll(() => forgetStatementNames());

describe("which statements are named", () => {
  it("a parameterized statement gets a name made from its text: the same text, the same name", () => {
    const [a] = withStatementName(["select $1::int as x /* prepared.test a */", [1]]) as [{ name: string; text: string; values: unknown[] }];
    const [b] = withStatementName([{ text: "select $1::int as x /* prepared.test a */", values: [2], rowMode: "array" }]) as [{ name: string; rowMode: string }];
    const [c] = withStatementName(["select $1::int as y /* prepared.test c */", [1]]) as [{ name: string }];
    expect(a.name).toMatch(/^rg_[A-Za-z0-9_-]{24}$/);
    expect(a.values).toEqual([1]);
    expect(b.name).toBe(a.name);
    expect(b.rowMode).toBe("array");
    expect(c.name).not.toBe(a.name);
  });

  it("keeps the callback where pg expects it", () => {
    const cb = () => {};
    const out = withStatementName([{ text: "select $1::int /* prepared.test cb */" }, [1], cb]);
    expect(out).toHaveLength(3);
    expect(out[1]).toEqual([1]);
    expect(out[2]).toBe(cb);
    expect((out[0] as { name?: string }).name).toBeDefined();
  });

  it("leaves statements without parameters, already named ones and pg Query objects alone", () => {
    const plain = ["begin"];
    expect(withStatementName(plain)).toBe(plain);
    const noValues = [{ text: "select 1" }];
    expect(withStatementName(noValues)).toBe(noValues);
    const named = [{ text: "select $1::int", values: [1], name: "mine" }];
    expect(withStatementName(named)).toBe(named);
    const cursor = [{ text: "select $1::int", values: [1], submit: () => {} }];
    expect(withStatementName(cursor)).toBe(cursor);
  });
});

const postgres = (await dbKind()) === "postgres";
describe.skipIf(!postgres)(`on PostgreSQL${postgres ? "" : " (skipped: this run uses PGlite, which has no named statements)"}`, () => {
  it("a statement run twice on one connection is prepared once and answers correctly both times", async () => {
    const db = await getDb();
    const marker = `prepared_test_${Date.now()}`;
    const rows = await db.transaction(async (tx) => {
      const first = await tx.execute(sql`select ${21}::int * 2 as x, ${marker}::text as m`);
      const second = await tx.execute(sql`select ${50}::int * 2 as x, ${marker}::text as m`);
      const prepared = await tx.execute(sql`select count(*)::int as n from pg_prepared_statements where statement like ${"%::int * 2 as x%"}`);
      const row = (r: unknown) => (r as { rows: unknown[] }).rows[0];
      return { first: row(first), second: row(second), prepared: row(prepared) };
    });
    expect(rows.first).toEqual({ x: 42, m: marker });
    expect(rows.second).toEqual({ x: 100, m: marker });
    expect(rows.prepared).toEqual({ n: 1 });
  });
});

// Last: it fills this process's names.
describe("the bound", () => {
  it("names at most MAX_NAMED_STATEMENTS texts per process; past that, statements go unnamed, and the log says so once", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    forgetStatementNames();
    try {
      for (let i = 0; i < MAX_NAMED_STATEMENTS; i++) withStatementName([`select $1::int + ${i} /* prepared.test bound */`, [1]]);
      expect(warn).not.toHaveBeenCalled();
      const past = [`select $1::int /* prepared.test past the bound */`, [1]];
      expect(withStatementName(past)).toBe(past);
      for (let i = 0; i < 5; i++) withStatementName([`select $1::int - ${i} /* prepared.test past the bound */`, [1]]);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]![0])).toMatch(new RegExp(`named ${MAX_NAMED_STATEMENTS} distinct statement texts.*never paired or batched`));
    } finally {
      warn.mockRestore();
    }
  });
});
