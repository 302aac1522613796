// A provider's answers name its manifest version; a new one makes Realmgate fetch the manifest again and validate
// it (docs/provider-protocol.md). Valid: stored with the row's version bumped (built realms are cached by it), so
// every node uses it from its next call. Invalid (or unreachable): the realm is marked unavailable with the reason
// on its card until a manifest validates again. Each change is audited; breaker changes too.
import { and, eq, sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { remoteProviders } from "@/db/schema";
import { recordAudit, type AuditPrincipal } from "@/lib/audit/record";
import { suspendChangedOperations } from "@/lib/authz/suspensions";
import type { RealmManifest } from "@/lib/realms/contract";
import { isAppError } from "@/lib/errors";
import { openMs, type Transition } from "./breaker";
import { fetchManifestDocument } from "./client";
import { checkManifestDocument, MAX_MANIFEST_BYTES } from "./manifest";
import { manifestMeaningChanges } from "./meaning";
import type { RemoteProvider } from "./store";

export type Refreshed = { status: "unchanged" | "changed" | "unavailable" | "unreachable"; problems?: string[] };

const lastTry = new Map<string, number>();
/**
 * Whether this node may fetch a registration's manifest again now: at most once per REALMGATE_REMOTE_BREAKER_MS
 * (every answer of a provider mid-change names the new version; one fetch is enough). Marks the attempt.
 */
export function mayRefresh(id: string, now = Date.now()): boolean {
  const last = lastTry.get(id);
  if (last !== undefined && now - last < openMs()) return false;
  lastTry.set(id, now);
  if (lastTry.size > 10_000) lastTry.delete(lastTry.keys().next().value!);
  return true;
}

/** Tests: forget when manifests were fetched. */
export function resetRefreshThrottle(): void {
  lastTry.clear();
}

/** Fetch and validate the manifest now; store the outcome (one row update and one audit record when it changed). */
export async function refreshManifest(tx: Executor, row: RemoteProvider, who: AuditPrincipal = { type: "system" }, requestId: string | null = null, fetched?: unknown): Promise<Refreshed> {
  let problems: string[];
  let next: { manifest: unknown; manifestVersion: string } | null = null;
  try {
    const check = checkManifestDocument(fetched ?? (await fetchManifestDocument(row.baseUrl, MAX_MANIFEST_BYTES)), { namespace: row.namespace });
    if (check.ok) next = { manifest: check.manifest, manifestVersion: check.manifestVersion };
    problems = check.ok ? [] : check.problems;
  } catch (err) {
    if (!isAppError(err)) throw err;
    // Not reached is not invalid: the realm keeps the manifest it has (its calls meet the provider's own outage).
    return { status: "unreachable", problems: [`the manifest could not be fetched: ${err.message}`] };
  }
  const audit = (event: "remote_provider.manifest_changed" | "remote_provider.unavailable" | "remote_provider.available", details: Record<string, unknown>) =>
    recordAudit(tx, { tenantId: row.tenantId, event, principal: who, requestId, namespace: row.namespace, outcome: event === "remote_provider.unavailable" ? "error" : "ok", subjectId: row.id, details });
  if (next) {
    if (next.manifestVersion === row.manifestVersion && row.status === "active") return { status: "unchanged" };
    // Only if nobody changed the row meanwhile (another node refreshing the same version).
    const updated = await tx
      .update(remoteProviders)
      .set({ manifest: next.manifest, manifestVersion: next.manifestVersion, status: "active", statusReason: null, version: sql`${remoteProviders.version} + 1`, updatedAt: new Date() })
      .where(and(eq(remoteProviders.id, row.id), eq(remoteProviders.version, row.version)))
      .returning({ id: remoteProviders.id });
    if (updated.length === 0) return { status: "unchanged" };
    if (row.status !== "active") await audit("remote_provider.available", { manifest_version: next.manifestVersion });
    // What changed meaning is suspended on the grants covering it, in this same transaction.
    const changes = manifestMeaningChanges(row.manifest as RealmManifest, next.manifest as RealmManifest);
    const suspended = await suspendChangedOperations(tx, { tenantId: row.tenantId, userId: who.type === "user" ? who.userId : null, requestId }, row.namespace, changes);
    if (next.manifestVersion !== row.manifestVersion || changes.length) {
      await audit("remote_provider.manifest_changed", { from: row.manifestVersion, to: next.manifestVersion, changes: changes.map((c) => `${c.operation}: ${c.change}`).slice(0, 50), suspended_grants: new Set(suspended.map((a) => a.grant_id)).size });
    }
    return { status: "changed" };
  }
  const reason = problems.slice(0, 10).join("; ").slice(0, 2000);
  if (row.status === "unavailable" && row.statusReason === reason) return { status: "unavailable", problems };
  const updated = await tx
    .update(remoteProviders)
    .set({ status: "unavailable", statusReason: reason, version: sql`${remoteProviders.version} + 1`, updatedAt: new Date() })
    .where(and(eq(remoteProviders.id, row.id), eq(remoteProviders.version, row.version)))
    .returning({ id: remoteProviders.id });
  if (updated.length) await audit("remote_provider.unavailable", { reason: "manifest_invalid", problems: problems.slice(0, 20) });
  return { status: "unavailable", problems };
}

/** A breaker change, audited (single failed calls are in their own call's record only). */
export async function recordBreaker(tx: Executor, row: Pick<RemoteProvider, "id" | "tenantId" | "namespace">, transition: Transition, requestId: string | null, detail: Record<string, unknown> = {}): Promise<void> {
  if (!transition) return;
  await recordAudit(tx, {
    tenantId: row.tenantId,
    event: transition === "opened" ? "remote_provider.breaker_opened" : "remote_provider.breaker_closed",
    principal: { type: "system" },
    requestId,
    namespace: row.namespace,
    outcome: transition === "opened" ? "error" : "ok",
    subjectId: row.id,
    details: { node: process.pid, ...detail },
  });
}
