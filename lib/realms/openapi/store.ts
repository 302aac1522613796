// Database reads of imported realms. Every query names the tenant.
import { and, asc, eq, sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { openapiCurations, openapiOperations, openapiRealms } from "@/db/schema";
import type { OperationCard, OperationContract } from "./operation-types";
import type { Curation, OperationRecord, RealmRecord } from "./manifest";

export type RealmHead = { id: string; tenantId: string; namespace: string; version: number };

const head = { id: openapiRealms.id, tenantId: openapiRealms.tenantId, namespace: openapiRealms.namespace, version: openapiRealms.version };

export async function realmHeads(db: Executor, tenantId: string): Promise<RealmHead[]> {
  return db.select(head).from(openapiRealms).where(eq(openapiRealms.tenantId, tenantId)).orderBy(asc(openapiRealms.namespace));
}

export async function realmHead(db: Executor, tenantId: string, namespace: string): Promise<RealmHead | null> {
  const [row] = await db.select(head).from(openapiRealms).where(and(eq(openapiRealms.tenantId, tenantId), eq(openapiRealms.namespace, namespace)));
  return row ?? null;
}

export async function realmRecord(db: Executor, tenantId: string, realmId: string): Promise<RealmRecord | null> {
  const [r] = await db
    .select({
      id: openapiRealms.id,
      tenantId: openapiRealms.tenantId,
      namespace: openapiRealms.namespace,
      title: openapiRealms.title,
      description: openapiRealms.description,
      keywords: openapiRealms.keywords,
      baseUrl: openapiRealms.baseUrl,
      version: openapiRealms.version,
      credentialKind: openapiRealms.credentialKind,
      credentialSet: sql<boolean>`${openapiRealms.credentialSealed} is not null`,
    })
    .from(openapiRealms)
    .where(and(eq(openapiRealms.tenantId, tenantId), eq(openapiRealms.id, realmId)));
  if (!r) return null;
  const { credentialKind, credentialSet, ...rest } = r;
  return { ...rest, credential: { type: credentialKind ?? "none", configured: credentialSet === true } };
}

export async function operationRecords(db: Executor, tenantId: string, realmId: string): Promise<OperationRecord[]> {
  const rows = await db
    .select({ action: openapiOperations.action, card: openapiOperations.card, contract: openapiOperations.contract })
    .from(openapiOperations)
    .where(and(eq(openapiOperations.tenantId, tenantId), eq(openapiOperations.realmId, realmId)))
    .orderBy(asc(openapiOperations.position));
  return rows.map((r) => ({ action: r.action, card: r.card as OperationCard, contract: r.contract as OperationContract }));
}

/** The cards only (what a re-import diffs against), without reading every contract back. */
export async function operationCards(db: Executor, tenantId: string, realmId: string): Promise<OperationCard[]> {
  const rows = await db
    .select({ card: openapiOperations.card })
    .from(openapiOperations)
    .where(and(eq(openapiOperations.tenantId, tenantId), eq(openapiOperations.realmId, realmId)))
    .orderBy(asc(openapiOperations.position));
  return rows.map((r) => r.card as OperationCard);
}

export async function curations(db: Executor, tenantId: string, realmId: string): Promise<Map<string, Curation>> {
  const rows = await db
    .select()
    .from(openapiCurations)
    .where(and(eq(openapiCurations.tenantId, tenantId), eq(openapiCurations.realmId, realmId)));
  return new Map(
    rows.map((r) => [r.action, { action: r.action, hidden: r.hidden, label: r.label, keywords: r.keywords, risk: r.risk, exactGrantOnly: r.exactGrantOnly }]),
  );
}

export async function sealedCredential(db: Executor, tenantId: string, realmId: string): Promise<string | null> {
  const [r] = await db
    .select({ sealed: openapiRealms.credentialSealed })
    .from(openapiRealms)
    .where(and(eq(openapiRealms.tenantId, tenantId), eq(openapiRealms.id, realmId)));
  return r?.sealed ?? null;
}
