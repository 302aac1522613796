// memory.item: one thing to remember, behind the owner / shared-with ACL. Listed pinned first, newest first.
import { and, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { memoryItems, type MemoryItem } from "@/db/schema/memory";
import { authorityOf, type LeanItem, type RealmContext } from "@/lib/realms/contract";
import { assertOwner, readable } from "@/lib/realms/native/acl";
import { defineKind, MAX_CHOICES, pageOf, requiredField, type PageOut } from "@/lib/realms/native/kind";
import { applyCollection, collectionPatch, emailList, emailsOf, peoplePatch, sharedWithAfter } from "@/lib/realms/native/people";
import { exactTime, inTenant, ownedOrShared, sqlTextArray, termsMatch } from "@/lib/realms/native/sql";
import { cut } from "@/lib/realms/native/text";
import { refs } from "../refs";

const label = z.string().trim().min(1).max(64).transform((s) => s.toLowerCase());

const fields = z.strictObject({
  text: z.string().trim().min(1).max(10_000).optional(),
  origin: z.string().trim().max(500).nullable().optional(),
  // Trimmed and lower-cased before the pattern applies: the published JSON Schema must not refuse " Fact".
  kind: z
    .string()
    .transform((s) => s.trim().toLowerCase())
    .pipe(z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, "a kind is a short lower-case word such as fact, preference or note"))
    .optional(),
  labels: collectionPatch(label).optional(),
  pinned: z.boolean().optional(),
  shared_with: peoplePatch().optional(),
});

const boolFilter = z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")]);
const filter = z.strictObject({
  kind: z.string().trim().toLowerCase().optional(),
  labels: z.union([label, z.array(label).max(20)]).optional(),
  pinned: boolFilter.optional(),
});

const selector = z
  .strictObject({ label: label.optional(), text: z.string().trim().min(1).max(200).optional() })
  .refine((s) => s.label !== undefined || s.text !== undefined, "name an item by label or by text");

/** Keyset over the list order (pinned first, newest first, id as tie-break). */
const cursor = z.strictObject({ p: z.union([z.literal(0), z.literal(1)]), ts: z.string().min(1).max(40), id: z.string().min(1).max(40) });
type Cursor = z.infer<typeof cursor>;

const visible = (ctx: RealmContext) => ownedOrShared(ctx, memoryItems);

const aclOf = (row: MemoryItem) => ({ ownerId: row.ownerId, sharedWith: row.sharedWith });

export const loadItem = readable(
  (ref) => refs.idOf(ref, "item"),
  async (ctx, id) => (await ctx.tx.select().from(memoryItems).where(inTenant(ctx, memoryItems, id)))[0],
  aclOf,
);

const textMatches = (query: string) =>
  termsMatch(sql`(${memoryItems.text} || ' ' || coalesce(${memoryItems.origin}, '') || ' ' || array_to_string(${memoryItems.labels}, ' '))`, query);

function filterConditions(f: z.infer<typeof filter>): SQL[] {
  const out: SQL[] = [];
  if (f.kind !== undefined) out.push(eq(memoryItems.kind, f.kind));
  if (f.labels !== undefined) {
    const wanted = Array.isArray(f.labels) ? f.labels : [f.labels];
    if (wanted.length) out.push(sql`${memoryItems.labels} @> ${sqlTextArray(wanted)}`);
  }
  if (f.pinned !== undefined) out.push(eq(memoryItems.pinned, f.pinned));
  return out;
}

function lean(row: MemoryItem): LeanItem {
  const summary = [row.kind, row.labels.map((l) => `#${l}`).join(" "), row.pinned ? "pinned" : ""].filter(Boolean).join(" · ");
  return { ref: refs.make("item", row.id), kind: "memory.item", label: cut(row.text.replace(/\s+/g, " "), 80), summary, updated_at: row.updatedAt.toISOString() };
}

async function page(ctx: RealmContext, conditions: SQL[], c: Cursor | null, n: number): Promise<PageOut<Cursor>> {
  const where = [visible(ctx), ...conditions];
  if (c) where.push(sql`(${memoryItems.pinned}::int, ${memoryItems.createdAt}, ${memoryItems.id}) < (${c.p}, ${c.ts}::timestamptz, ${c.id})`);
  const rows = await ctx.tx
    .select({ row: memoryItems, key: exactTime(memoryItems.createdAt) })
    .from(memoryItems)
    .where(and(...where))
    .orderBy(desc(memoryItems.pinned), desc(memoryItems.createdAt), desc(memoryItems.id))
    .limit(n + 1);
  return pageOf(rows, n, (r) => lean(r.row), (last) => ({ p: last.row.pinned ? 1 : 0, ts: last.key, id: last.row.id }));
}

export async function presentItem(ctx: RealmContext, row: MemoryItem): Promise<Record<string, unknown>> {
  const emails = await emailsOf(ctx, [row.ownerId, ...row.sharedWith]);
  return {
    ref: refs.make("item", row.id),
    text: row.text,
    origin: row.origin,
    kind: row.kind,
    labels: row.labels,
    pinned: row.pinned,
    owner: emails.get(row.ownerId) ?? row.ownerId,
    shared_with: emailList(emails, row.sharedWith),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** Change an item the caller may read; `changes` empty returns it as it is. */
export async function updateItem(ctx: RealmContext, row: MemoryItem, changes: Partial<MemoryItem>): Promise<Record<string, unknown>> {
  if (!Object.keys(changes).length) return presentItem(ctx, row);
  const [updated] = await ctx.tx
    .update(memoryItems)
    .set({ ...changes, updatedAt: ctx.now })
    .where(inTenant(ctx, memoryItems, row.id))
    .returning();
  return presentItem(ctx, updated!);
}

export async function destroyItem(ctx: RealmContext, row: MemoryItem, ref: string): Promise<void> {
  assertOwner(aclOf(row), ref, ctx);
  await ctx.tx.delete(memoryItems).where(inTenant(ctx, memoryItems, row.id));
}

export const itemKind = defineKind({
  noun: "memory item",
  schemas: { create: fields, patch: fields, filter, selector },
  cursor,
  load: loadItem,
  present: (ctx, row) => presentItem(ctx, row),
  searchable: true,
  page: (ctx, { filter: f, query, after, limit }) => page(ctx, [...filterConditions(f), ...(query === null ? [] : textMatches(query))], after, limit),

  async create(ctx, f) {
    if (f.text === undefined) throw requiredField("text", "a memory item");
    const ownerId = authorityOf(ctx.principal);
    const [created] = await ctx.tx
      .insert(memoryItems)
      .values({
        id: refs.newId("item"),
        tenantId: ctx.tenantId,
        ownerId,
        text: f.text,
        origin: f.origin ?? null,
        kind: f.kind ?? "note",
        labels: f.labels ? applyCollection([], f.labels) : [],
        pinned: f.pinned ?? false,
        sharedWith: f.shared_with ? await sharedWithAfter(ctx, [], ownerId, f.shared_with) : [],
        createdAt: ctx.now,
        updatedAt: ctx.now,
      })
      .returning();
    return { ref: refs.make("item", created!.id), object: await presentItem(ctx, created!) };
  },

  async patch(ctx, ref, f) {
    const row = await loadItem(ctx, ref);
    const changes: Partial<MemoryItem> = {};
    if (f.text !== undefined) changes.text = f.text;
    if (f.origin !== undefined) changes.origin = f.origin;
    if (f.kind !== undefined) changes.kind = f.kind;
    if (f.labels) changes.labels = applyCollection(row.labels, f.labels);
    if (f.pinned !== undefined) changes.pinned = f.pinned;
    if (f.shared_with !== undefined) {
      // Re-sharing widens who sees the item: the owner's decision alone.
      assertOwner(aclOf(row), ref, ctx);
      changes.sharedWith = await sharedWithAfter(ctx, row.sharedWith, row.ownerId, f.shared_with);
    }
    return updateItem(ctx, row, changes);
  },

  delete: destroyItem,

  async resolve(ctx, s) {
    const conditions: SQL[] = [];
    if (s.label !== undefined) conditions.push(sql`${memoryItems.labels} @> ${sqlTextArray([s.label])}`);
    if (s.text !== undefined) conditions.push(...textMatches(s.text));
    return (await page(ctx, conditions, null, MAX_CHOICES + 1)).items;
  },

  /** Items contain nothing: no lineage. */
  async describe(ctx, ids) {
    const rows = await ctx.tx
      .select()
      .from(memoryItems)
      .where(and(visible(ctx), inArray(memoryItems.id, ids)));
    return new Map(
      rows.map((row) => {
        const { label, summary } = lean(row);
        return [row.id, { label, summary: summary ? `memory item · ${summary}` : "memory item", lineage: [] }];
      }),
    );
  },
});
