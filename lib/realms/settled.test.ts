// ctx.settled writes: run in order on the enclosing transaction, each in its own savepoint, so one that fails
// is undone alone and logged without its detail, and the rest (and the caller's transaction) carry on.
import { sql } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { getDb } from "@/db/client";
import { settledWrites } from "./settled";

describe("settled writes", () => {
  it("run in order on the enclosing transaction; a failing one is undone alone and logged by its first line", async () => {
    const db = await getDb();
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const rows = await db.transaction(async (tx) => {
        await tx.execute(sql`create temp table settled_probe (n int) on commit drop`);
        const s = settledWrites();
        s.add(async (w) => void (await w.execute(sql`insert into settled_probe values (1)`)));
        s.add(async (w) => {
          await w.execute(sql`insert into settled_probe values (2)`);
          throw new Error("boom\nsecret detail on the second line");
        });
        s.add(async (w) => void (await w.execute(sql`insert into settled_probe values (3)`)));
        await s.run(tx);
        await s.run(tx); // already drained: nothing runs twice
        const r = await tx.execute<{ n: number }>(sql`select n from settled_probe order by n`);
        return (r as unknown as { rows: { n: number }[] }).rows.map((x) => Number(x.n));
      });
      expect(rows).toEqual([1, 3]);
      expect(logged).toHaveBeenCalledTimes(1);
      expect(String(logged.mock.calls[0]![0])).toContain("boom");
      expect(String(logged.mock.calls[0]![0])).not.toContain("secret detail");
    } finally {
      logged.mockRestore();
    }
  });
});
