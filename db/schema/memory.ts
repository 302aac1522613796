// The memory realm's storage: things a person (or their agents) asked Realmgate to remember.
import { sql } from "drizzle-orm";
import { boolean, index, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, idColumn, timestampCol } from "./columns";
import { tenants, users } from "./tenancy";

export const memoryItems = pgTable(
  "memory_items",
  {
    id: idColumn(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    ownerId: text("owner_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    /** User ids who may read and edit (never destroy or re-share). */
    sharedWith: text("shared_with").array().notNull().default(sql`'{}'::text[]`),
    text: text("text").notNull(),
    /** Free text: where the memory came from (a conversation, a document, a person). */
    origin: text("origin"),
    /** Open vocabulary; `fact`, `preference` and `note` are the known values. */
    kind: text("kind").notNull().default("note"),
    /** Lower-cased, deduplicated. */
    labels: text("labels").array().notNull().default(sql`'{}'::text[]`),
    pinned: boolean("pinned").notNull().default(false),
    createdAt: createdAt(),
    updatedAt: timestampCol("updated_at").notNull().defaultNow(),
  },
  (t) => [
    // The list order: pinned first, newest first (see the memory adapter's keyset).
    index("memory_items_tenant_order").on(t.tenantId, t.pinned, t.createdAt, t.id),
    index("memory_items_labels").using("gin", t.labels),
  ],
);
export type MemoryItem = typeof memoryItems.$inferSelect;
