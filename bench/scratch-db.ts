// A PostgreSQL database of a benchmark's own, created on the server BENCH_PG_ADMIN_URL names (default the local one)
// and dropped with its connections when the benchmark is done (e2e/support/postgres.ts).
import { scratchDatabase as scratchOn, type ScratchDatabase } from "../e2e/support/postgres";

export type { ScratchDatabase };

export const adminUrl = () => process.env.BENCH_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** Create `<prefix>_<random>` on BENCH_PG_ADMIN_URL's server. Fails if the server cannot be reached. */
export const scratchDatabase = (prefix: string): Promise<ScratchDatabase> => scratchOn(prefix, adminUrl());
