// An agent's working set: the few exact tools it materialized (object_schema with materialize), listed after the
// nine generic tools. One row per tool; the set lasts while it is used (REALMGATE_WORKING_SET_TTL after the last
// materialize or call of any of its tools), so any app node serves the same set.
import { sql } from "drizzle-orm";
import { check, index, pgTable, primaryKey, text, unique } from "drizzle-orm/pg-core";
import { actors } from "./authz";
import { createdAt, timestampCol } from "./columns";
import { tenants } from "./tenancy";

/** A working set holds at most 3 read tools and 1 write-or-destructive tool. */
export const workingSetSlots = ["read", "write"] as const;
export type WorkingSetSlot = (typeof workingSetSlots)[number];

export const workingSetTools = pgTable(
  "working_set_tools",
  {
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    actorId: text("actor_id").notNull().references(() => actors.id, { onDelete: "cascade" }),
    /** The exact tool's name (`^[a-zA-Z0-9_-]{1,48}$`), derived from namespace and action (lib/working-set/names.ts). */
    name: text("name").notNull(),
    namespace: text("namespace").notNull(),
    /** The action's operation key, `object.action.<action>`. */
    operation: text("operation").notNull(),
    slot: text("slot", { enum: workingSetSlots }).notNull(),
    createdAt: createdAt(),
    /** Materialized or called last: the least recently used of a slot is evicted first. */
    lastUsedAt: timestampCol("last_used_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.actorId, t.name] }),
    unique("working_set_tools_operation").on(t.tenantId, t.actorId, t.namespace, t.operation),
    index("working_set_tools_realm").on(t.tenantId, t.namespace, t.operation),
    check("working_set_tools_slot_check", sql`${t.slot} in ('read', 'write')`),
  ],
);
export type WorkingSetTool = typeof workingSetTools.$inferSelect;
