// Where embeddings of capability texts are kept between processes: the embedding_cache table, keyed by
// (model, SHA-256 of the text). Scripts without a database keep them in process memory instead.
import { and, eq, inArray, sql } from "drizzle-orm";
import { getDb, type Executor } from "@/db/client";
import { embeddingCache } from "@/db/schema";

export type StoredVector = { hash: string; vector: Float32Array };

export interface VectorStore {
  /** The cached vectors among these text hashes (missing ones are simply absent). */
  load(model: string, hashes: string[]): Promise<Map<string, Float32Array>>;
  /** Remember vectors; a vector for a hash already stored replaces it (the model behind a name changed). */
  save(model: string, rows: StoredVector[]): Promise<void>;
}

const READ_CHUNK = 1000;
const WRITE_CHUNK = 200;

/**
 * The embedding_cache table. Reads may go through the caller's executor (PGlite has one connection: a read on
 * the process's handle waits for any transaction open on it); writes always use the process's own handle,
 * because they can finish after the request that started them.
 */
export function dbVectorStore(readWith?: Executor): VectorStore {
  return {
    async load(model, hashes) {
      const db = readWith ?? (await getDb());
      const out = new Map<string, Float32Array>();
      for (let i = 0; i < hashes.length; i += READ_CHUNK) {
        const rows = await db
          .select({ hash: embeddingCache.textHash, vector: embeddingCache.vector })
          .from(embeddingCache)
          .where(and(eq(embeddingCache.model, model), inArray(embeddingCache.textHash, hashes.slice(i, i + READ_CHUNK))));
        for (const r of rows) out.set(r.hash, Float32Array.from(r.vector));
      }
      return out;
    },
    async save(model, rows) {
      const db = await getDb();
      for (let i = 0; i < rows.length; i += WRITE_CHUNK) {
        await db
          .insert(embeddingCache)
          .values(rows.slice(i, i + WRITE_CHUNK).map((r) => ({ model, textHash: r.hash, dims: r.vector.length, vector: Array.from(r.vector) })))
          .onConflictDoUpdate({
            target: [embeddingCache.model, embeddingCache.textHash],
            set: { dims: sql`excluded.dims`, vector: sql`excluded.vector`, createdAt: sql`now()` },
          });
      }
    },
  };
}

/** Vectors kept for the life of the process (benchmarks and scripts that run without a database). */
export function memoryVectorStore(): VectorStore {
  const byModel = new Map<string, Map<string, Float32Array>>();
  return {
    async load(model, hashes) {
      const have = byModel.get(model);
      const out = new Map<string, Float32Array>();
      for (const h of hashes) {
        const v = have?.get(h);
        if (v) out.set(h, v);
      }
      return out;
    },
    async save(model, rows) {
      let have = byModel.get(model);
      if (!have) byModel.set(model, (have = new Map()));
      for (const r of rows) have.set(r.hash, r.vector);
    },
  };
}
