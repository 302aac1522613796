// The memory realm's adapter: memory items in Realmgate's database, per tenant, behind the owner /
// shared-with ACL (gate two). Every query carries the tenant; invisible items answer not_found.
import { and, desc, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { memoryItems, type MemoryItem } from "@/db/schema";
import { AppError, parseWith } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { assertDestroyable, assertReadable } from "@/lib/realms/acl";
import { authorityOf, type CursorState, type Filter, type LeanItem, type RealmAdapter, type RealmContext, type RefDescription } from "@/lib/realms/contract";
import { refCodec } from "@/lib/realms/refs";
import { forgetPayload, manifest, pinPayload } from "./manifest";
import { applyCollection, emailsOf, likePattern, sharedWithAfter, sqlTextArray } from "@/lib/realms/native";

const KIND = "memory.item";
const refs = refCodec("memory", { item: { kind: KIND, idPrefix: "mem" } });
const MAX_CHOICES = 20;

// ---------------------------------------------------------------------------------------------------
// Input schemas (the dispatcher checks the manifest; these check the fields themselves).

const label = z.string().trim().min(1).max(64).transform((s) => s.toLowerCase());
const person = z.string().trim().min(1).max(320);
/** A collection field: a list replaces, {add, remove} edits. */
const collection = <T extends z.ZodType<string>>(item: T) =>
  z.union([
    z.array(item).max(50),
    z.strictObject({ add: z.array(item).max(50).optional(), remove: z.array(item).max(50).optional() }),
  ]);

const upsertFields = z.strictObject({
  text: z.string().trim().min(1).max(10_000).optional(),
  origin: z.string().trim().max(500).nullable().optional(),
  kind: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z][a-z0-9_-]{0,31}$/, "a kind is a short lower-case word such as fact, preference or note")
    .optional(),
  labels: collection(label).optional(),
  pinned: z.boolean().optional(),
  shared_with: collection(person).optional(),
});

const boolFilter = z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")]);
const filterSchema = z.strictObject({
  kind: z.string().trim().toLowerCase().optional(),
  labels: z.union([label, z.array(label).max(20)]).optional(),
  pinned: boolFilter.optional(),
});

const selectorSchema = z
  .strictObject({ label: label.optional(), text: z.string().trim().min(1).max(200).optional() })
  .refine((s) => s.label !== undefined || s.text !== undefined, "name an item by label or by text");

/** Keyset over the list order (pinned first, newest first, id as tie-break). */
const cursorSchema = z.strictObject({ p: z.union([z.literal(0), z.literal(1)]), ts: z.string().min(1).max(40), id: z.string().min(1).max(40) });

// ---------------------------------------------------------------------------------------------------

function assertKind(kind: string | null): void {
  if (kind !== null && kind !== KIND) throw new AppError("invalid_input", `memory has no kind ${kind}; its only kind is ${KIND}.`, { details: { kind } });
}

function unsupported(operation: string): never {
  throw new AppError("invalid_input", `${KIND} does not support ${operation}`);
}

const clampLimit = (limit: number) => Math.min(Math.max(1, Math.trunc(limit) || 1), manifest.delivery.max_page_size);

/** Rows the caller may read: in the tenant, owned by or shared with the call's authority. */
function visible(ctx: RealmContext): SQL {
  const who = authorityOf(ctx.principal);
  return and(eq(memoryItems.tenantId, ctx.tenantId), or(eq(memoryItems.ownerId, who), sql`${who} = any(${memoryItems.sharedWith})`))!;
}

/** created_at as an exact (microsecond) UTC string: a JS Date would lose precision and break the keyset. */
const createdKey = sql<string>`to_char(${memoryItems.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

function filterConditions(filter: Filter): SQL[] {
  const f = parseWith(filterSchema, filter, "filter");
  const out: SQL[] = [];
  if (f.kind !== undefined) out.push(eq(memoryItems.kind, f.kind));
  if (f.labels !== undefined) {
    const wanted = Array.isArray(f.labels) ? f.labels : [f.labels];
    if (wanted.length) out.push(sql`${memoryItems.labels} @> ${sqlTextArray(wanted)}`);
  }
  if (f.pinned !== undefined) out.push(eq(memoryItems.pinned, f.pinned));
  return out;
}

function textMatches(query: string): SQL[] {
  const terms = query.trim().split(/\s+/).filter(Boolean).slice(0, 10);
  const haystack = sql`(${memoryItems.text} || ' ' || coalesce(${memoryItems.origin}, '') || ' ' || array_to_string(${memoryItems.labels}, ' '))`;
  return terms.map((t) => sql`${haystack} ilike ${likePattern(t)}`);
}

type Row = MemoryItem & { key: string };

async function page(ctx: RealmContext, conditions: SQL[], after: CursorState | null, limit: number): Promise<{ items: LeanItem[]; next: CursorState | null }> {
  const n = clampLimit(limit);
  const where = [visible(ctx), ...conditions];
  if (after) {
    const parsed = cursorSchema.safeParse(after);
    if (!parsed.success) throw new AppError("invalid_cursor", "This cursor does not belong to a memory listing.");
    const c = parsed.data;
    where.push(sql`(${memoryItems.pinned}::int, ${memoryItems.createdAt}, ${memoryItems.id}) < (${c.p}, ${c.ts}::timestamptz, ${c.id})`);
  }
  const rows: Row[] = await ctx.tx
    .select({ ...itemColumns, key: createdKey })
    .from(memoryItems)
    .where(and(...where))
    .orderBy(desc(memoryItems.pinned), desc(memoryItems.createdAt), desc(memoryItems.id))
    .limit(n + 1);
  const more = rows.length > n;
  const shown = rows.slice(0, n);
  const last = shown.at(-1);
  return { items: shown.map(lean), next: more && last ? { p: last.pinned ? 1 : 0, ts: last.key, id: last.id } : null };
}

const itemColumns = {
  id: memoryItems.id,
  tenantId: memoryItems.tenantId,
  ownerId: memoryItems.ownerId,
  sharedWith: memoryItems.sharedWith,
  text: memoryItems.text,
  origin: memoryItems.origin,
  kind: memoryItems.kind,
  labels: memoryItems.labels,
  pinned: memoryItems.pinned,
  createdAt: memoryItems.createdAt,
  updatedAt: memoryItems.updatedAt,
};

function lean(row: MemoryItem): LeanItem {
  const oneLine = row.text.replace(/\s+/g, " ");
  const label = oneLine.length > 80 ? `${oneLine.slice(0, 79)}…` : oneLine;
  const summary = [row.kind, row.labels.map((l) => `#${l}`).join(" "), row.pinned ? "pinned" : ""].filter(Boolean).join(" · ");
  return { ref: refs.make("item", row.id), kind: KIND, label, summary, updated_at: row.updatedAt.toISOString() };
}

/** An item the caller may read, or not_found (missing, another tenant's, or not shared with them). */
async function loadReadable(ctx: RealmContext, ref: string): Promise<MemoryItem> {
  const { id } = refs.parse(ref);
  const [row] = await ctx.tx
    .select()
    .from(memoryItems)
    .where(and(eq(memoryItems.tenantId, ctx.tenantId), eq(memoryItems.id, id)));
  const acl = row && { ownerId: row.ownerId, sharedWith: row.sharedWith };
  assertReadable(acl, ref, ctx.principal);
  return row!;
}

async function present(ctx: RealmContext, row: MemoryItem): Promise<Record<string, unknown>> {
  const emails = await emailsOf(ctx, [row.ownerId, ...row.sharedWith]);
  return {
    ref: refs.make("item", row.id),
    text: row.text,
    origin: row.origin,
    kind: row.kind,
    labels: row.labels,
    pinned: row.pinned,
    owner: emails.get(row.ownerId) ?? row.ownerId,
    shared_with: row.sharedWith.map((id) => emails.get(id) ?? id),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** Items as a person reads them, in one query: invisible, missing or malformed refs are null. Items contain nothing. */
async function describeRefs(ctx: RealmContext, input: string[]): Promise<Record<string, RefDescription | null>> {
  const out: Record<string, RefDescription | null> = {};
  const byId = new Map<string, string>();
  for (const ref of input) {
    out[ref] = null;
    try {
      byId.set(refs.parse(ref).id, ref);
    } catch {
      // a malformed ref names nothing
    }
  }
  if (!byId.size) return out;
  const rows = await ctx.tx
    .select()
    .from(memoryItems)
    .where(and(visible(ctx), inArray(memoryItems.id, [...byId.keys()])));
  for (const row of rows) {
    const { label, summary } = lean(row);
    out[byId.get(row.id)!] = { kind: KIND, label, summary: summary ? `memory item · ${summary}` : "memory item", lineage: [] };
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------

export const adapter: RealmAdapter = {
  parseRef(ref) {
    return { kind: refs.parse(ref).kind };
  },

  describeRefs,

  async list(ctx, input) {
    assertKind(input.kind);
    return page(ctx, filterConditions(input.filter), input.after, input.limit);
  },

  async search(ctx, input) {
    assertKind(input.kind);
    return page(ctx, [...filterConditions(input.filter), ...textMatches(input.query)], input.after, input.limit);
  },

  async get(ctx, input) {
    return present(ctx, await loadReadable(ctx, input.ref));
  },

  async action(ctx, input) {
    if (input.ref === null) throw new AppError("invalid_input", `${input.action.name} needs the ref of a ${KIND}.`);
    const row = await loadReadable(ctx, input.ref);
    switch (input.action.name) {
      case "pin": {
        const { pinned } = parseWith(pinPayload, input.payload, "payload");
        const [updated] = await ctx.tx
          .update(memoryItems)
          .set({ pinned, updatedAt: ctx.now })
          .where(and(eq(memoryItems.tenantId, ctx.tenantId), eq(memoryItems.id, row.id)))
          .returning();
        return present(ctx, updated!);
      }
      case "forget": {
        const { reason } = parseWith(forgetPayload, input.payload, "payload");
        assertDestroyable({ ownerId: row.ownerId, sharedWith: row.sharedWith }, input.ref, ctx.principal);
        await ctx.tx.delete(memoryItems).where(and(eq(memoryItems.tenantId, ctx.tenantId), eq(memoryItems.id, row.id)));
        return { ref: input.ref, forgotten: true, ...(reason ? { reason } : {}) };
      }
      default:
        return unsupported(`the action ${input.action.name}`);
    }
  },

  async upsert(ctx, input) {
    assertKind(input.kind);
    const fields = parseWith(upsertFields, input.fields, "fields");
    const labelsPatch = fields.labels;

    if (input.ref === null) {
      if (fields.text === undefined) throw new AppError("invalid_input", "Invalid fields: text: required to create a memory item.", { details: { issues: [{ path: "text", message: "required" }] } });
      const ownerId = authorityOf(ctx.principal);
      const [created] = await ctx.tx
        .insert(memoryItems)
        .values({
          id: newId("mem"),
          tenantId: ctx.tenantId,
          ownerId,
          text: fields.text,
          origin: fields.origin ?? null,
          kind: fields.kind ?? "note",
          labels: labelsPatch ? applyCollection([], labelsPatch) : [],
          pinned: fields.pinned ?? false,
          sharedWith: fields.shared_with ? await sharedWithAfter(ctx, [], ownerId, fields.shared_with) : [],
          createdAt: ctx.now,
          updatedAt: ctx.now,
        })
        .returning();
      return { ref: refs.make("item", created!.id), created: true, object: await present(ctx, created!) };
    }

    const row = await loadReadable(ctx, input.ref);
    const changes: Partial<MemoryItem> = {};
    if (fields.text !== undefined) changes.text = fields.text;
    if (fields.origin !== undefined) changes.origin = fields.origin;
    if (fields.kind !== undefined) changes.kind = fields.kind;
    if (labelsPatch) changes.labels = applyCollection(row.labels, labelsPatch);
    if (fields.pinned !== undefined) changes.pinned = fields.pinned;
    if (fields.shared_with !== undefined) {
      // Re-sharing widens who sees the item: the owner's decision alone.
      assertDestroyable({ ownerId: row.ownerId, sharedWith: row.sharedWith }, input.ref, ctx.principal);
      changes.sharedWith = await sharedWithAfter(ctx, row.sharedWith, row.ownerId, fields.shared_with);
    }
    if (!Object.keys(changes).length) return { ref: input.ref, created: false, object: await present(ctx, row) };
    const [updated] = await ctx.tx
      .update(memoryItems)
      .set({ ...changes, updatedAt: ctx.now })
      .where(and(eq(memoryItems.tenantId, ctx.tenantId), eq(memoryItems.id, row.id)))
      .returning();
    return { ref: input.ref, created: false, object: await present(ctx, updated!) };
  },

  async delete(ctx, input) {
    const row = await loadReadable(ctx, input.ref);
    assertDestroyable({ ownerId: row.ownerId, sharedWith: row.sharedWith }, input.ref, ctx.principal);
    await ctx.tx.delete(memoryItems).where(and(eq(memoryItems.tenantId, ctx.tenantId), eq(memoryItems.id, row.id)));
    return { ref: input.ref, deleted: true };
  },

  async hostFile() {
    throw new AppError("invalid_input", "memory does not support file.host");
  },

  async resolve(ctx, input) {
    assertKind(input.kind);
    const s = parseWith(selectorSchema, input.selector, "selector");
    const conditions: SQL[] = [];
    if (s.label !== undefined) conditions.push(sql`${memoryItems.labels} @> ${sqlTextArray([s.label])}`);
    if (s.text !== undefined) conditions.push(...textMatches(s.text));
    const { items } = await page(ctx, conditions, null, MAX_CHOICES + 1);
    if (items.length === 0) {
      throw new AppError("not_found", `No memory item matches ${JSON.stringify(input.selector)} (or you may not see it).`, { details: { selector: input.selector } });
    }
    return items.length === 1 ? { ref: items[0]!.ref } : { choices: items.slice(0, MAX_CHOICES) };
  },
};
