// For db/pipeline.test.ts: in a process of its own (the database handle is one per process), count the round trips of
// a transaction of two statements, the last one marked, under this process's DB_PIPELINE; print them as JSON.
import { sql } from "drizzle-orm";
import { closeDb, getDb, onExchange } from "./client";
import { commitWithNext } from "./pipeline";

const db = await getDb();
const run = () =>
  db.transaction(async (tx) => {
    await tx.execute(sql`select ${1}::int as pipeline_off`);
    commitWithNext(tx);
    await tx.execute(sql`select ${2}::int as pipeline_off`);
  });
await run();
let n = 0;
const off = onExchange(() => n++);
await run();
off();
await closeDb();
console.log(JSON.stringify({ exchanges: n }));
