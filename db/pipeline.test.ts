// BEGIN and COMMIT paired with a transaction's first and last statements (db/pipeline.ts), on PostgreSQL: fewer
// round trips, the same transaction — one xid, all or nothing, and a failure at any point leaves nothing behind.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";
import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { dbKind, getDb, onExchange, onStatement, type Tx } from "./client";
import { tenants } from "./schema";
import { commitWithNext, inOneExchange, savepointWithNext } from "./pipeline";
import { forgetStatementNames } from "./prepared";
import { secondCopyOf } from "@/test-support";

const postgres = (await dbKind()) === "postgres";

/** Round trips to the server while `fn` runs. */
async function exchangesOf<T>(fn: () => Promise<T>): Promise<{ value: T; n: number }> {
  let n = 0;
  const off = onExchange(() => n++);
  try {
    return { value: await fn(), n };
  } finally {
    off();
  }
}

const xid = async (tx: Tx, marker: number) => {
  const r = (await tx.execute(sql`select txid_current()::text as xid, ${marker}::int as marker`)) as unknown as { rows: { xid: string; marker: number }[] };
  return r.rows[0]!;
};
const statusOf = async (id: string) => {
  const db = await getDb();
  const r = (await db.execute(sql`select txid_status(${id}::bigint) as s`)) as unknown as { rows: { s: string }[] };
  return r.rows[0]!.s;
};
/** The error itself, under drizzle's "Failed query" wrapper. */
const causeOf = (e: unknown) => String((e as { cause?: unknown }).cause ?? e);
const bucket = () => `pipeline:${randomBytes(6).toString("hex")}`;
const stamp = (tx: Tx, b: string) => tx.execute(sql`insert into rate_limit_hits (bucket, window_start, weight, expires_at) values (${b}, now(), 1, now() + interval '1 hour')`);
const stamps = async (b: string) => {
  const db = await getDb();
  const r = (await db.execute(sql`select count(*)::int as n from rate_limit_hits where bucket = ${b}`)) as unknown as { rows: { n: number }[] };
  return r.rows[0]!.n;
};

describe.skipIf(!postgres)(`BEGIN and COMMIT ride with statements${postgres ? "" : " (skipped: this run uses PGlite, which runs in this process: no round trips to save)"}`, () => {
  it("BEGIN goes with the first statement and COMMIT with the one marked last: 2 round trips for 4 statements, one transaction", async () => {
    const db = await getDb();
    const run = () =>
      db.transaction(async (tx) => {
        const first = await xid(tx, 1);
        commitWithNext(tx);
        const last = await xid(tx, 2);
        return { first, last };
      });
    // A statement is paired once its connection has prepared it (the pool hands the same idle connection back).
    await run();
    const { value, n } = await exchangesOf(run);
    expect(n).toBe(2);
    expect(value.first.marker).toBe(1);
    expect(value.last.marker).toBe(2);
    expect(value.last.xid).toBe(value.first.xid);
    expect(await statusOf(value.first.xid)).toBe("committed");
  });

  it("marks made through another copy of this module pair all the same (Next.js gives instrumentation.ts, which opens the pool, and the routes a copy each)", async () => {
    forgetStatementNames(); // only named statements pair: earlier files in this process may have used up the bound
    const routes = await secondCopyOf<typeof import("./pipeline")>("@/db/pipeline.ts");
    expect(routes.commitWithNext).not.toBe(commitWithNext); // a copy of its own, as under `next start`
    const db = await getDb();
    const b = bucket();
    const run = () =>
      db.transaction(async (tx) => {
        const [one, two] = await routes.inOneExchange(tx, [() => xid(tx, 1), () => xid(tx, 2)] as const);
        const savepoint = routes.savepointWithNext(tx, "rg_copy");
        await stamp(tx, b);
        await tx.execute(sql`release savepoint rg_copy`);
        routes.commitWithNext(tx);
        await xid(tx, 3);
        return { one, two, savepoint };
      });
    await run();
    const { value, n } = await exchangesOf(run);
    // BEGIN with the two reads; the stamp with its SAVEPOINT; the release with the last read and COMMIT.
    expect(value.savepoint).toBe(true);
    expect(n).toBe(3);
    expect(value.one.xid).toBe(value.two.xid);
    expect(await stamps(b)).toBe(2);
  });

  it("without the mark the transaction's own COMMIT is its own round trip, and commits", async () => {
    const db = await getDb();
    const b = bucket();
    await db.transaction(async (tx) => void (await stamp(tx, bucket())));
    const { n } = await exchangesOf(() => db.transaction(async (tx) => void (await stamp(tx, b))));
    expect(n).toBe(2);
    expect(await stamps(b)).toBe(1);
  });

  it("a SAVEPOINT marked goes behind the next statement, in its exchange; rolling back to it keeps what came before", async () => {
    const db = await getDb();
    const [kept, undone] = [bucket(), bucket()];
    const run = (a: string, b: string, fail: boolean) =>
      db.transaction(async (tx) => {
        expect(savepointWithNext(tx, "rg_test")).toBe(true);
        await stamp(tx, a);
        await stamp(tx, b);
        // A database error inside the savepoint: rolling back to it makes the transaction usable again.
        if (fail) await tx.execute(sql`select 1 / 0`).catch(() => {});
        await tx.execute(sql`rollback to savepoint rg_test`);
        await stamp(tx, a);
      });
    await run(bucket(), bucket(), false);
    const { n } = await exchangesOf(() => run(kept, undone, true));
    // BEGIN + the first stamp + SAVEPOINT, the second stamp, the failing select, ROLLBACK TO, the third stamp, COMMIT.
    expect(n).toBe(6);
    expect(await stamps(kept)).toBe(2);
    expect(await stamps(undone)).toBe(0);
  });

  it("a marked statement that fails leaves no savepoint, and the transaction fails as it would", async () => {
    const db = await getDb();
    const b = bucket();
    const err = await db
      .transaction(async (tx) => {
        savepointWithNext(tx, "rg_test");
        await tx.execute(sql`select 1 / ${0}::int`);
      })
      .catch((e: unknown) => e);
    expect(causeOf(err)).toMatch(/division by zero/);
    // The connection serves the next transaction, with nothing held over from this one.
    await db.transaction(async (tx) => void (await stamp(tx, b)));
    expect(await stamps(b)).toBe(1);
  });

  it("a transaction that sends nothing never reaches the server", async () => {
    const db = await getDb();
    const { value, n } = await exchangesOf(() => db.transaction(async () => 42));
    expect(value).toBe(42);
    expect(n).toBe(0);
    const rolledBack = await exchangesOf(() => db.transaction(async () => Promise.reject(new Error("nothing done"))).catch((e: Error) => e.message));
    expect(rolledBack).toEqual({ value: "nothing done", n: 0 });
  });

  it("a first statement that fails: nothing is kept, and the connection serves the next transactions", async () => {
    const db = await getDb();
    const err = await db.transaction(async (tx) => void (await tx.execute(sql`select 1 / ${0}::int`))).catch((e: unknown) => e);
    expect(String((err as { cause?: { code?: string } }).cause?.code ?? err)).toMatch(/22012|division/);
    // Every pooled connection is still usable and outside any transaction.
    const rows = await Promise.all(
      Array.from({ length: 12 }, () => db.transaction(async (tx) => (await tx.execute(sql`select ${7}::int as seven, now() = statement_timestamp() as fresh`)) as unknown as { rows: { seven: number }[] })),
    );
    for (const r of rows) expect(r.rows[0]!.seven).toBe(7);
  });

  it("a marked last statement that fails: nothing is committed, and nothing more may run in the transaction", async () => {
    const db = await getDb();
    // The first run prepares the failing statement on the connection (a named statement is paired only once its
    // connection has parsed it; past the process's bound of names it is unnamed, and paired at once); the second pairs it.
    for (const paired of [false, true]) {
      const b = bucket();
      let after: unknown;
      const err = await db
        .transaction(async (tx) => {
          await stamp(tx, b);
          commitWithNext(tx);
          await tx.execute(sql`select 1 / ${0}::int as pipeline_test`).catch(async (e: unknown) => {
            after = await stamp(tx, b).catch((e2: unknown) => e2);
            throw e;
          });
        })
        .catch((e: unknown) => e);
      expect(String((err as { cause?: { code?: string } }).cause?.code ?? err)).toMatch(/22012|division/);
      // Paired, the next statement fails unsent with the marked statement's own error; unpaired, the server refuses it.
      expect(causeOf(after)).toMatch(paired ? /division by zero/ : /division by zero|current transaction is aborted/);
      expect(await stamps(b)).toBe(0);
    }
  });

  it("a COMMIT that fails (a deferred constraint): the marked statement fails with it and nothing is committed", async () => {
    const db = await getDb();
    {
      const b = bucket();
      let marked = false;
      const err = await db
        .transaction(async (tx) => {
          await tx.execute(sql`create temp table pipeline_deferred (id int primary key deferrable initially deferred) on commit drop`);
          await stamp(tx, b);
          await tx.execute(sql`insert into pipeline_deferred values (${1}::int)`);
          commitWithNext(tx);
          // Passes now; its unique violation is found at COMMIT.
          await tx.execute(sql`insert into pipeline_deferred values (${1}::int)`).catch((e: unknown) => {
            marked = true;
            throw e;
          });
        })
        .catch((e: unknown) => e);
      expect(String((err as { cause?: { code?: string } }).cause?.code ?? (err as { code?: string }).code ?? err)).toMatch(/23505|duplicate/);
      // The same insert ran before it in the transaction, so it is prepared and paired: it fails, with COMMIT's error.
      expect(marked).toBe(true);
      expect(await stamps(b)).toBe(0);
    }
  });

  it("a statement after the one that committed fails without being sent; what committed stays", async () => {
    const db = await getDb();
    const [b1, b2] = [bucket(), bucket()];
    const err = await db
      .transaction(async (tx) => {
        commitWithNext(tx);
        await stamp(tx, b1);
        await stamp(tx, b2);
      })
      .catch((e: unknown) => e);
    expect(causeOf(err)).toMatch(/after the one that committed/);
    expect(await stamps(b1)).toBe(1);
    expect(await stamps(b2)).toBe(0);
  });

  it("the mark does nothing inside a savepoint: COMMIT would end the enclosing transaction", async () => {
    const db = await getDb();
    const b = bucket();
    const out = await db
      .transaction(async (tx) => {
        const first = await xid(tx, 1);
        await tx.transaction(async (sp) => {
          commitWithNext(sp);
          await stamp(sp, b);
        });
        const later = await xid(tx, 2);
        throw Object.assign(new Error("undo"), { ids: [first.xid, later.xid] });
      })
      .catch((e: { ids?: string[] }) => e.ids);
    expect(out![0]).toBe(out![1]);
    // The whole transaction rolled back, the savepoint's stamp with it.
    expect(await stamps(b)).toBe(0);
  });

  describe("a write's savepoint (drizzle's nested transaction) and its release ride with the statements next to them", () => {
    it("SAVEPOINT goes with the effect's first statement, RELEASE with the statement after the effect: one transaction", async () => {
      const db = await getDb();
      const [a, b] = [bucket(), bucket()];
      const run = (x: string, y: string) =>
        db.transaction(async (tx) => {
          const first = await xid(tx, 1);
          const inner = await tx.transaction(async (sp) => {
            await stamp(sp, x);
            return xid(sp, 2);
          });
          await stamp(tx, y);
          commitWithNext(tx);
          const last = await xid(tx, 3);
          return { first, inner, last };
        });
      await run(bucket(), bucket());
      const seen: string[] = [];
      const off = onStatement((s) => seen.push(s.trim().toLowerCase()));
      const { value, n } = await exchangesOf(() => run(a, b)).finally(off);
      // Every statement is still run by the server, in order (the listener sees what the transaction issued)…
      expect(seen.filter((s) => /^(begin|savepoint|release|commit)/.test(s))).toEqual(["begin", "savepoint sp1", "release savepoint sp1", "commit"]);
      // …in 5 exchanges instead of 7: BEGIN + read, SAVEPOINT + stamp, read, RELEASE + stamp, read + COMMIT.
      expect(n).toBe(5);
      expect(new Set([value.first.xid, value.inner.xid, value.last.xid]).size).toBe(1);
      expect(await stamps(a)).toBe(1);
      expect(await stamps(b)).toBe(1);
    });

    it("an effect that fails on the server rolls back to the savepoint that went with its first statement; the transaction goes on", async () => {
      const db = await getDb();
      const [undone, kept] = [bucket(), bucket()];
      await db.transaction(async (tx) => {
        await stamp(tx, kept);
        const err = await tx
          .transaction(async (sp) => {
            await stamp(sp, undone);
            await sp.execute(sql`select 1 / ${0}::int`);
          })
          .catch((e: unknown) => e);
        expect(causeOf(err)).toMatch(/division by zero/);
        await stamp(tx, kept);
      });
      expect(await stamps(undone)).toBe(0);
      expect(await stamps(kept)).toBe(2);
    });

    /** The exchanges of one transaction running `body` (after a run to warm the connection up: only prepared statements pair), and the stamps it left. */
    async function warmRun(body: (tx: Tx, b: string) => Promise<void>): Promise<{ n: number; stamped: number }> {
      const db = await getDb();
      await db.transaction((tx) => body(tx, bucket()));
      const b = bucket();
      const { n } = await exchangesOf(() => db.transaction((tx) => body(tx, b)));
      return { n, stamped: await stamps(b) };
    }

    it("an effect that fails before it sends anything: neither SAVEPOINT nor ROLLBACK TO reaches the server", async () => {
      const r = await warmRun(async (tx, b) => {
        await stamp(tx, b);
        await tx.transaction(async () => Promise.reject(new Error("refused in Node"))).catch(() => {});
        commitWithNext(tx);
        await stamp(tx, b);
      });
      expect(r).toEqual({ n: 2, stamped: 2 });
    });

    it("savepoints nested with nothing sent between them go together; a RELEASE left before COMMIT is not sent (COMMIT releases it)", async () => {
      const r = await warmRun(async (tx, b) => {
        await stamp(tx, b);
        await tx.transaction((one) => one.transaction(async (two) => void (await stamp(two, b))));
      });
      // BEGIN + stamp; SAVEPOINT sp1 + SAVEPOINT sp2 + stamp; COMMIT (the two RELEASEs it makes moot are dropped).
      expect(r).toEqual({ n: 3, stamped: 2 });
    });

    it("outside a transaction, or in a failed one, a SAVEPOINT is sent as it comes and fails as it would", async () => {
      const db = await getDb();
      // No transaction: the server refuses it on its own; the next statement is not touched.
      expect(causeOf(await db.execute(sql.raw("savepoint rg_outside")).catch((e: unknown) => e))).toMatch(/transaction block/);
      const b = bucket();
      await db.execute(sql`insert into rate_limit_hits (bucket, window_start, weight, expires_at) values (${b}, now(), 1, now() + interval '1 hour')`);
      expect(await stamps(b)).toBe(1);
      // A failed transaction: refused at once, not later with the statement after it.
      const err = await db
        .transaction(async (tx) => {
          await tx.execute(sql`select 1 / ${0}::int`).catch(() => {});
          await tx.execute(sql.raw("savepoint rg_failed"));
        })
        .catch((e: unknown) => e);
      expect(causeOf(err)).toMatch(/current transaction is aborted/);
      // Issued while a statement that fails is still in flight (the server's last word was 'T'), it is not held
      // either: it follows that statement and is refused, as it would be.
      const inFlight = await db
        .transaction(async (tx) => {
          await stamp(tx, bucket());
          const failing = tx.execute(sql`select 1 / ${0}::int`).catch(() => {});
          await tx.execute(sql.raw("savepoint rg_in_flight"));
          await failing;
        })
        .catch((e: unknown) => e);
      expect(causeOf(inFlight)).toMatch(/current transaction is aborted/);
    });
  });

  it("a first statement without parameters (it may hold several commands) follows a BEGIN of its own, in the transaction", async () => {
    const db = await getDb();
    const run = () =>
      db.transaction(async (tx) => {
        const a = (await tx.execute(sql.raw("select txid_current()::text as xid"))) as unknown as { rows: { xid: string }[] };
        const b = await xid(tx, 3);
        return [a.rows[0]!.xid, b.xid];
      });
    await run();
    const { value, n } = await exchangesOf(run);
    expect(value[0]).toBe(value[1]);
    expect(n).toBe(4);
  });

  it("rows come back as the statement's own, in drizzle's array mode and with its types", async () => {
    const db = await getDb();
    const rows = await db.transaction(async (tx) => {
      commitWithNext(tx);
      return tx.select({ n: sql<number>`${5}::int`, at: sql<Date>`'2030-01-02T03:04:05Z'::timestamptz`.mapWith((v: string) => new Date(v)) }).from(sql`(select 1) as one`);
    });
    expect(rows).toEqual([{ n: 5, at: new Date("2030-01-02T03:04:05Z") }]);
  });

  it("DB_PIPELINE=0 turns it off: each statement, BEGIN and COMMIT included, is a round trip of its own", async () => {
    const count = async (pipeline: string) => {
      const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "db/test-pipeline-off.ts"], {
        env: { ...process.env, DB_PIPELINE: pipeline },
        timeout: 60_000,
      });
      return (JSON.parse(stdout.trim().split("\n").pop()!) as { exchanges: number }).exchanges;
    };
    const [on, off] = await Promise.all([count("1"), count("0")]);
    expect(on).toBe(2);
    expect(off).toBe(4);
  }, 90_000);

  it("statements issued together behind a BEGIN of its own reach the server in the order they were issued", async () => {
    const db = await getDb();
    await db.execute(sql`create sequence if not exists pipeline_test_order`);
    const order = await db.transaction(async (tx) => {
      // The first (no parameters) gets a BEGIN of its own; the second, issued at once, must not overtake it.
      const rows = await Promise.all([
        tx.execute(sql.raw(`select nextval('pipeline_test_order')::int as n, txid_current()::text as xid`)),
        tx.execute(sql`select nextval('pipeline_test_order')::int as n, txid_current()::text as xid, ${1}::int as second`),
      ]);
      return rows.map((r) => (r as unknown as { rows: { n: number; xid: string }[] }).rows[0]!);
    });
    expect(order[1]!.xid).toBe(order[0]!.xid);
    expect(order[1]!.n).toBe(order[0]!.n + 1);
  });

  describe("reads gathered with inOneExchange", () => {
    // A statement joins a batch only when named (db/prepared.ts): earlier test files in this process may have used up the bound of names.
    beforeAll(() => forgetStatementNames());
    type Row = { n: number; xid: string; seen: string | null };
    /** One statement: its own value, its transaction's id, and a setting the transaction may hold. */    const read = (tx: Tx, k: number) => async () => {
      const r = (await tx.execute(sql`select ${k}::int as n, txid_current()::text as xid, current_setting('realmgate.batch', true) as seen, ${`probe ${k}`}::text as which`)) as unknown as { rows: Row[] };
      return r.rows[0]!;
    };
    const three = (tx: Tx) => inOneExchange(tx, [read(tx, 1), read(tx, 2), read(tx, 3)] as const);

    it("three reads go in one exchange, each with its own answer, in the call's transaction", async () => {
      const db = await getDb();
      // A statement joins a batch once its connection has prepared it: warm every pooled connection first.
      await Promise.all(Array.from({ length: 12 }, () => db.transaction(async (tx) => void (await three(tx)))));
      const { value, n } = await exchangesOf(() =>
        db.transaction(async (tx) => {
          const first = await read(tx, 0)();
          const rows = await three(tx);
          return { first, rows };
        }),
      );
      expect(value.rows.map((r) => r.n)).toEqual([1, 2, 3]);
      for (const r of value.rows) expect(r.xid).toBe(value.first.xid);
      // BEGIN with the first read, the three together, the transaction's own COMMIT.
      expect(n).toBe(3);
    });

    it("BEGIN held for the first statement goes with the batch, and the server runs them in order", async () => {
      const db = await getDb();
      const run = () =>
        db.transaction(async (tx) =>
          inOneExchange(tx, [
            async () => tx.execute(sql`select set_config('realmgate.batch', ${"set by the first"}::text, true)`),
            read(tx, 2),
          ] as const),
        );
      await Promise.all(Array.from({ length: 12 }, run));
      const { value, n } = await exchangesOf(run);
      expect(value[1].seen).toBe("set by the first");
      expect(n).toBe(2); // BEGIN + the batch, then COMMIT
    });

    it("a read that fails fails the batch: nothing of the transaction is kept, and the connection serves the next ones", async () => {
      const db = await getDb();
      const failing = (tx: Tx) => async () => tx.execute(sql`select 1 / ${0}::int as batch_fails`);
      for (let i = 0; i < 2; i++) {
        const b = bucket();
        const outcome = await db
          .transaction(async (tx) => {
            await stamp(tx, b);
            return inOneExchange(tx, [read(tx, 1), failing(tx), read(tx, 3)] as const);
          })
          .then(() => "committed", (e: unknown) => causeOf(e));
        expect(outcome).toMatch(/division by zero/);
        expect(await stamps(b)).toBe(0);
      }
      const rows = await Promise.all(Array.from({ length: 12 }, () => db.transaction(async (tx) => three(tx))));
      for (const r of rows) expect(r.map((x) => x.n)).toEqual([1, 2, 3]);
    });

    it("a statement its connection has not prepared goes on its own, with the same answer", async () => {
      const db = await getDb();
      const marker = randomBytes(6).toString("hex");
      const fresh = (tx: Tx, k: number) => async () =>
        ((await tx.execute(sql`select ${k}::int as n, ${marker}::text as m, ${sql.raw(`'${marker}'`)}::text as text_of_its_own`)) as unknown as { rows: { n: number }[] }).rows[0]!.n;
      const { value, n } = await exchangesOf(() => db.transaction(async (tx) => inOneExchange(tx, [fresh(tx, 1), async () => (await read(tx, 2)()).n] as const)));
      expect(value).toEqual([1, 2]);
      expect(n).toBeGreaterThanOrEqual(3);
    });

    it("a thunk that sends nothing, or waits before it sends, only costs the batching", async () => {
      const db = await getDb();
      const value = await db.transaction(async (tx) =>
        inOneExchange(tx, [
          read(tx, 1),
          async () => "nothing sent",
          async () => {
            await new Promise((r) => setTimeout(r, 5));
            return read(tx, 3)();
          },
        ] as const),
      );
      expect(value[0].n).toBe(1);
      expect(value[1]).toBe("nothing sent");
      expect(value[2].n).toBe(3);
    });

    it("rows keep drizzle's shapes and types through a batch (a select builder's array rows, dates)", async () => {
      const db = await getDb();
      const id = `tnt_batch${randomBytes(6).toString("hex")}`;
      const [t] = await db.insert(tenants).values({ id, slug: id.toLowerCase(), name: "Batch" }).returning();
      const byId = (tx: Tx) => async () => tx.select({ id: tenants.id, created: tenants.createdAt }).from(tenants).where(eq(tenants.id, t!.id));
      const statements: string[] = [];
      const off = onStatement((x) => statements.push(x));
      try {
        for (let i = 0; i < 13; i++) {
          const [a, b] = await db.transaction(async (tx) => inOneExchange(tx, [byId(tx), byId(tx)] as const));
          expect(a).toEqual([{ id: t!.id, created: t!.createdAt }]);
          expect(b).toEqual(a);
          expect(a[0]!.created).toBeInstanceOf(Date);
        }
      } finally {
        off();
      }
      expect(statements.length).toBeGreaterThan(0);
    });

    it("each statement gets its own result, whether it returns rows, none, or no row description at all", async () => {
      const db = await getDb();
      const b = bucket();
      const run = () =>
        db.transaction(async (tx) => {
          await stamp(tx, b);
          const [none, updated, after] = await inOneExchange(tx, [
            async () => (await tx.execute(sql`select bucket from rate_limit_hits where bucket = ${`${b}:absent`}`)) as unknown as { rows: unknown[] },
            // An UPDATE without RETURNING: the server sends no row description for it, only its completion.
            async () => (await tx.execute(sql`update rate_limit_hits set weight = weight + ${1}::int where bucket = ${b}`)) as unknown as { rowCount: number },
            read(tx, 3),
          ] as const);
          return { none: none.rows, updated: updated.rowCount, after: after.n };
        });
      for (let i = 0; i < 12; i++) expect(await run()).toEqual({ none: [], updated: 1 + i, after: 3 });
      const { value, n } = await exchangesOf(run);
      expect(value).toEqual({ none: [], updated: 13, after: 3 });
      expect(n).toBe(3); // BEGIN + the stamp, the three together, COMMIT
    });

    it("a batch leaves no timer behind: pg's read timeout for it is cleared once it is answered", async () => {
      // The timer held the batch and, through its async context, the whole request that sent it: with one left
      // per batch for the query timeout (16 s), a loaded server kept thousands of finished requests alive.
      const db = await getDb();
      await db.transaction(async (tx) => three(tx));
      const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
      const before = timers();
      for (let i = 0; i < 25; i++) expect((await db.transaction(async (tx) => three(tx))).map((x) => x.n)).toEqual([1, 2, 3]);
      expect(timers() - before).toBeLessThan(5);
    });

    it("a statement is described once per connection: later runs send no Describe, and their rows and types are the same", async () => {
      const db = await getDb();
      const id = `tnt_${randomBytes(8).toString("hex")}`;
      const [t] = await db.insert(tenants).values({ id, slug: id.toLowerCase(), name: "Described" }).returning();
      // A transaction shaped like a tool call's: BEGIN with an object-mode read, a batch (array mode: a select
      // builder's rows, and object mode), COMMIT with the last statement.
      const run = () =>
        db.transaction(async (tx) => {
          const first = await read(tx, 0)();
          const [rows, objects] = await inOneExchange(tx, [
            async () => tx.select({ id: tenants.id, created: tenants.createdAt, name: tenants.name }).from(tenants).where(eq(tenants.id, t!.id)),
            read(tx, 2),
          ] as const);
          commitWithNext(tx);
          const last = await read(tx, 3)();
          return { first, rows, objects, last };
        });
      const expected = (v: Awaited<ReturnType<typeof run>>) => {
        expect(v.first).toMatchObject({ n: 0, which: "probe 0" });
        expect(v.rows).toEqual([{ id: t!.id, created: t!.createdAt, name: "Described" }]);
        expect(v.rows[0]!.created).toBeInstanceOf(Date);
        expect(v.objects).toMatchObject({ n: 2, which: "probe 2" });
        expect(Object.keys(v.objects)).toEqual(["n", "xid", "seen", "which"]);
        expect(v.last).toMatchObject({ n: 3, which: "probe 3" });
        expect(v.last.xid).toBe(v.first.xid);
      };
      // Each pooled connection runs the statements first: the first time pg's own way (it parses them), the second
      // paired or batched (described, and the shape kept).
      for (let round = 0; round < 2; round++) for (const v of await Promise.all(Array.from({ length: 12 }, run))) expected(v);
      const connection = (await import("pg")).default.Connection.prototype as unknown as { describe(...a: unknown[]): unknown };
      const describe = connection.describe;
      let described = 0;
      connection.describe = function (this: unknown, ...a: unknown[]) {
        described++;
        return describe.apply(this, a);
      };
      try {
        for (let i = 0; i < 5; i++) {
          const { value, n } = await exchangesOf(run);
          expected(value);
          expect(n).toBe(3);
        }
      } finally {
        connection.describe = describe;
      }
      expect(described).toBe(0);
    });

    it("a statement marked last after a batch still carries COMMIT", async () => {
      const db = await getDb();
      const b = bucket();
      const run = (bk: string) =>
        db.transaction(async (tx) => {
          await three(tx);
          commitWithNext(tx);
          await stamp(tx, bk);
        });
      await Promise.all(Array.from({ length: 12 }, () => run(bucket())));
      const { n } = await exchangesOf(() => run(b));
      expect(n).toBe(2);
      expect(await stamps(b)).toBe(1);
    });
  });
});
