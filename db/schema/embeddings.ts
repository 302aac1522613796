// Embeddings of capability texts, cached by (model, SHA-256 of the exact text embedded). Tenant-independent
// on purpose: built-in realms' capability docs are the same for every tenant, and an imported realm's docs
// are keyed by their text, so two versions of a realm (or two tenants importing the same document) share
// one row per unchanged operation. A row reveals nothing without the text it was made from.
//
// Vectors are `real[]` because pgvector is not available everywhere Realmgate runs (nor is PGlite's vector
// extension in the PGlite it ships); cosine similarity is computed in the application (`similarities` in
// lib/catalog/semantic.ts). To move ranking into the database, add a `vector(<dims>)` column filled with
// `vector::vector(<dims>)` (pgvector casts real[] directly) and an HNSW index per model, and make
// `similarities` an `ORDER BY embedding <=> $query` query over the candidates' text hashes.
import { integer, pgTable, primaryKey, real, text } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";

export const embeddingCache = pgTable(
  "embedding_cache",
  {
    /** The embeddings model name as configured (REALMGATE_EMBEDDINGS_MODEL). */
    model: text("model").notNull(),
    /** Hex SHA-256 of the text that was embedded. */
    textHash: text("text_hash").notNull(),
    dims: integer("dims").notNull(),
    vector: real("vector").array().notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.model, t.textHash] })],
);

export type EmbeddingCacheRow = typeof embeddingCache.$inferSelect;
