// The owner's curation of an imported service's operations: hide, relabel, add keywords, override risk,
// mark "only an exact grant covers it". Each change bumps the realm's version, so the manifest — and with it the
// picker, provider_about, capability search and tool answers — reflects it on the very next call.
import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db, Executor } from "@/db/client";
import { openapiCurations, openapiRealms } from "@/db/schema";
import { recordChange } from "@/lib/audit/record";
import type { UserContext } from "@/lib/authz/context";
import { suspendChangedOperations, type MeaningChange } from "@/lib/authz/suspensions";
import { AppError } from "@/lib/errors";
import { riskSchema } from "@/lib/realms/contract";
import { groupOf, curate, type CuratedOperation } from "@/lib/realms/openapi/manifest";
import { AFFECTED_LIST_CAP, curationMeaningChange, grantCount } from "./meaning";
import { curations, operationRecords, realmHead } from "@/lib/realms/openapi/store";

export const curationBody = z.strictObject({
  changes: z
    .array(
      z.strictObject({
        action: z.string().min(1).max(250),
        hidden: z.boolean().optional(),
        /** A human label; null restores the document's summary. */
        label: z.string().trim().min(1).max(120).nullable().optional(),
        keywords: z.array(z.string().trim().min(1).max(40)).max(20).optional(),
        /** Override the risk taken from the HTTP method; null restores it. */
        risk: riskSchema.nullable().optional(),
        exact_grant_only: z.boolean().optional(),
      }),
    )
    .min(1)
    .max(2000),
});
export type CurationBody = z.infer<typeof curationBody>;

export const listOperationsQuery = z.strictObject({
  q: z.string().trim().max(200).optional(),
  hidden: z.enum(["true", "false"]).optional(),
  offset: z.coerce.number().int().min(0).max(100_000).default(0),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

function view(o: CuratedOperation) {
  return {
    action: o.action,
    method: o.card.method,
    path: o.card.path,
    group: groupOf(o.card).path,
    summary: o.card.summary,
    label: o.label,
    risk: o.risk,
    default_risk: o.card.risk,
    hidden: o.hidden,
    exact_grant_only: o.exactGrantOnly,
    keywords: o.keywords,
    input_digest: o.card.input_digest,
    scopes: o.card.scopes,
    deprecated: o.card.deprecated,
  };
}

async function requireImported(db: Executor, who: UserContext, namespace: string) {
  if (who.role !== "owner") throw new AppError("forbidden", "Only a tenant owner curates imported services.");
  const head = await realmHead(db, who.tenantId, namespace);
  if (!head) throw new AppError("not_found", `No imported service "${namespace}".`, { details: { namespace } });
  return head;
}

/** The operations of an imported service with their curation, filtered and paged. */
export async function listOperations(db: Executor, who: UserContext, namespace: string, query: z.infer<typeof listOperationsQuery>) {
  const head = await requireImported(db, who, namespace);
  const all = curate(await operationRecords(db, who.tenantId, head.id), await curations(db, who.tenantId, head.id));
  const q = query.q?.toLowerCase();
  const filtered = all.filter(
    (o) =>
      (!q || o.action.toLowerCase().includes(q) || o.card.summary.toLowerCase().includes(q) || o.card.path.toLowerCase().includes(q) || o.label.toLowerCase().includes(q)) &&
      (query.hidden === undefined || String(o.hidden) === query.hidden),
  );
  return {
    namespace,
    version: head.version,
    total: all.length,
    hidden: all.filter((o) => o.hidden).length,
    matching: filtered.length,
    offset: query.offset,
    operations: filtered.slice(query.offset, query.offset + query.limit).map(view),
  };
}

/**
 * Apply curation changes in one transaction; unknown operations are refused by name. A risk override that raises
 * an operation's effective risk suspends it on every grant covering it, in the same transaction; the answer lists
 * those as `suspended_grants` (one entry per grant and operation, the first 200) and `suspended_grant_count`.
 */
export async function curateOperations(db: Db, who: UserContext, namespace: string, body: CurationBody) {
  return db.transaction(async (tx) => {
    const head = await requireImported(tx, who, namespace);
    const ops = await operationRecords(tx, who.tenantId, head.id);
    const known = new Set(ops.map((o) => o.action));
    const unknown = body.changes.map((c) => c.action).filter((a) => !known.has(a));
    if (unknown.length) {
      throw new AppError("invalid_input", `Unknown operation${unknown.length > 1 ? "s" : ""} in ${namespace}: ${unknown.slice(0, 5).join(", ")}.`, {
        details: { namespace, unknown: unknown.slice(0, 50) },
      });
    }
    const current = await curations(tx, who.tenantId, head.id);
    const original = new Map(current);
    for (const c of body.changes) {
      const was = current.get(c.action);
      const next = {
        hidden: c.hidden ?? was?.hidden ?? false,
        label: c.label !== undefined ? c.label : (was?.label ?? null),
        keywords: c.keywords ?? was?.keywords ?? [],
        risk: c.risk !== undefined ? c.risk : (was?.risk ?? null),
        exactGrantOnly: c.exact_grant_only ?? was?.exactGrantOnly ?? false,
      };
      await tx
        .insert(openapiCurations)
        .values({ realmId: head.id, tenantId: who.tenantId, action: c.action, ...next, updatedBy: who.userId })
        .onConflictDoUpdate({ target: [openapiCurations.realmId, openapiCurations.action], set: { ...next, updatedBy: who.userId, updatedAt: new Date() } });
      current.set(c.action, { action: c.action, ...next });
    }
    // Compared once per operation, first state against last, however many changes the body makes to it.
    const cards = new Map(ops.map((o) => [o.action, o.card]));
    const meaning: MeaningChange[] = [];
    for (const action of new Set(body.changes.map((c) => c.action))) {
      const card = cards.get(action)!;
      const change = curationMeaningChange(card, original.get(action)?.risk ?? null, current.get(action)?.risk ?? null);
      if (change) meaning.push(change);
    }
    const suspended = await suspendChangedOperations(tx, who, namespace, meaning);
    const [bumped] = await tx
      .update(openapiRealms)
      .set({ version: sql`${openapiRealms.version} + 1`, updatedAt: new Date() })
      .where(and(eq(openapiRealms.tenantId, who.tenantId), eq(openapiRealms.id, head.id)))
      .returning({ version: openapiRealms.version });
    await recordChange(tx, who, "realm.curated", {
      namespace,
      subjectId: head.id,
      details: { version: bumped?.version, changes: body.changes.slice(0, 50), change_count: body.changes.length, suspended_grants: grantCount(suspended) },
    });
    const changed = new Set(body.changes.map((c) => c.action));
    return {
      namespace,
      version: bumped?.version ?? head.version,
      // Curated over every operation, so a label derived from its neighbours reads as it will on the card.
      operations: curate(ops, current)
        .filter((o) => changed.has(o.action))
        .map(view),
      suspended_grants: suspended.slice(0, AFFECTED_LIST_CAP),
      suspended_grant_count: grantCount(suspended),
    };
  });
}
