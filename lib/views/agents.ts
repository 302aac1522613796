// What the Agents page and the OAuth consent page show: operations grouped by realm and catalog area (the
// grouped picker), each OAuth client's connection status, grants' scopes by name, and the grant a denial links to.
import { and, eq, inArray } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { actors, mcpClients, mcpRefreshTokens } from "@/db/schema";
import { describeRefsAs } from "@/lib/realms/names";
import { operationStates } from "@/lib/authz/policy";
import { env } from "@/lib/env";
import { riskOf, type CatalogNode, type RealmManifest, type Risk } from "@/lib/realms/contract";
import { findRealm, listRealms } from "@/lib/realms/registry";
import type { RiskCounts } from "./realms";

/** One operation in the picker. `value` is what a form submits (`<namespace> <operation key>`). */
export type PickerOperation = {
  value: string;
  key: string;
  label: string;
  risk: Risk;
  /** Ticked when the page opens. */
  checked: boolean;
  /** Already held: shown ticked and fixed. */
  approved: boolean;
  /** The workspace asks for this one to be approved explicitly. */
  exactOnly: boolean;
};

export type PickerGroup = { id: string; area: string; description: string; operations: PickerOperation[]; counts: RiskCounts };
export type PickerRealm = { namespace: string; title: string; purpose: string; groups: PickerGroup[]; counts: RiskCounts };

const emptyCounts = (): RiskCounts => ({ read: 0, write: 0, destructive: 0 });

export function countByRisk(ops: { risk: Risk }[]): RiskCounts {
  const c = emptyCounts();
  for (const o of ops) c[o.risk]++;
  return c;
}

/** "641 read, 12 change data, 3 delete data" — a group's counts in words, for its summary line. */
export function countsInWords(c: RiskCounts): string {
  const parts = [
    c.read ? `${c.read} read` : null,
    c.write ? `${c.write} change data` : null,
    c.destructive ? `${c.destructive} delete data` : null,
  ].filter(Boolean);
  return parts.length ? parts.join(", ") : "nothing";
}

/**
 * The realm's operations grouped by its catalog's top-level areas (each operation in the first area that names
 * it, depth first), in catalog order; operations no area names (the realm-wide ones) form a first group named
 * after the realm. Empty groups are dropped.
 */
export function groupByArea(manifest: Pick<RealmManifest, "namespace" | "catalog" | "service_card">, ops: PickerOperation[]): PickerGroup[] {
  const areaOf = new Map<string, number>();
  const areas = manifest.catalog.children;
  const walk = (n: CatalogNode, i: number) => {
    for (const o of n.operations) if (!areaOf.has(o)) areaOf.set(o, i);
    for (const c of n.children) walk(c, i);
  };
  areas.forEach((a, i) => walk(a, i));
  const buckets: PickerOperation[][] = areas.map(() => []);
  const general: PickerOperation[] = [];
  for (const o of ops) {
    const i = areaOf.get(o.key);
    (i === undefined ? general : buckets[i]!).push(o);
  }
  const out: PickerGroup[] = [];
  if (general.length)
    out.push({ id: `${manifest.namespace}:/`, area: areas.length ? "General" : manifest.service_card.title, description: manifest.catalog.description, operations: general, counts: countByRisk(general) });
  areas.forEach((a, i) => {
    const list = buckets[i]!;
    if (list.length) out.push({ id: `${manifest.namespace}:${a.path}`, area: a.label, description: a.description, operations: list, counts: countByRisk(list) });
  });
  return out;
}

export function pickerRealm(manifest: RealmManifest, ops: PickerOperation[]): PickerRealm {
  return { namespace: manifest.namespace, title: manifest.service_card.title, purpose: manifest.service_card.purpose, groups: groupByArea(manifest, ops), counts: countByRisk(ops) };
}

/** What the viewer may grant their agents from the Agents page: every realm's effective operations, grouped. */
export async function grantableRealms(db: Executor, who: { tenantId: string; userId: string }): Promise<PickerRealm[]> {
  const out: PickerRealm[] = [];
  for (const realm of await listRealms(db, who.tenantId)) {
    const m = realm.manifest;
    const states = await operationStates(db, who.tenantId, who.userId, m.namespace);
    const ops: PickerOperation[] = states
      // In ask mode each call waits for a person: no grant covers it, so none is offered.
      .filter((s) => s.mode === "on")
      .map((s) => ({
        value: `${m.namespace} ${s.operation}`,
        key: s.operation,
        label: m.service_card.operation_labels[s.operation] ?? s.operation,
        risk: riskOf(m, s.operation),
        checked: false,
        approved: false,
        exactOnly: !!m.actions.find((a) => `object.action.${a.name}` === s.operation)?.exact_grant_only,
      }));
    if (ops.length) out.push(pickerRealm(m, ops));
  }
  return out;
}

/** An OAuth client's connection, as the Agents page shows it on one line. */
export type ClientConnection = {
  client_id: string;
  registered_at: string | null;
  redirect_hosts: string[];
  /** `live` while a refresh token is usable; `revoked` when every one was revoked; `expired` when they ran out; `none` before any. */
  tokens: "live" | "revoked" | "expired" | "none";
  last_token_at: string | null;
};

export function connectionStatus(rows: { revokedAt: Date | null; rotatedAt: Date | null; expiresAt: Date; createdAt: Date }[], now = new Date()): Pick<ClientConnection, "tokens" | "last_token_at"> {
  if (rows.length === 0) return { tokens: "none", last_token_at: null };
  const last = rows.reduce((a, b) => (a.createdAt > b.createdAt ? a : b)).createdAt.toISOString();
  if (rows.some((r) => !r.revokedAt && !r.rotatedAt && r.expiresAt > now)) return { tokens: "live", last_token_at: last };
  // The newest token of each chain is the one that counts: revoked if the chain ended by a revoke.
  const current = rows.filter((r) => !r.rotatedAt);
  const ended = current.length ? current : rows;
  return { tokens: ended.some((r) => r.revokedAt) ? "revoked" : "expired", last_token_at: last };
}

function hostOf(uri: string): string {
  try {
    return new URL(uri).host || uri.split(":")[0]!;
  } catch {
    return uri.slice(0, 60);
  }
}

/** The connection of each of the viewer's OAuth client actors, by actor id. */
export async function clientConnections(db: Executor, who: { tenantId: string; userId: string }, now = new Date()): Promise<Record<string, ClientConnection>> {
  const mine = await db
    .select({ id: actors.id, clientId: actors.clientId })
    .from(actors)
    .where(and(eq(actors.tenantId, who.tenantId), eq(actors.grantorId, who.userId), eq(actors.kind, "mcp_client")));
  const withClient = mine.filter((a): a is { id: string; clientId: string } => !!a.clientId);
  if (withClient.length === 0) return {};
  const clientIds = [...new Set(withClient.map((a) => a.clientId))];
  const [clients, tokens] = await Promise.all([
    db.select().from(mcpClients).where(inArray(mcpClients.clientId, clientIds)),
    db
      .select({ actorId: mcpRefreshTokens.actorId, revokedAt: mcpRefreshTokens.revokedAt, rotatedAt: mcpRefreshTokens.rotatedAt, expiresAt: mcpRefreshTokens.expiresAt, createdAt: mcpRefreshTokens.createdAt })
      .from(mcpRefreshTokens)
      .where(and(eq(mcpRefreshTokens.tenantId, who.tenantId), inArray(mcpRefreshTokens.actorId, withClient.map((a) => a.id)))),
  ]);
  const out: Record<string, ClientConnection> = {};
  for (const a of withClient) {
    const c = clients.find((x) => x.clientId === a.clientId);
    out[a.id] = {
      client_id: a.clientId,
      registered_at: c?.createdAt.toISOString() ?? null,
      redirect_hosts: [...new Set((c?.redirectUris ?? []).map(hostOf))],
      ...connectionStatus(
        tokens.filter((t) => t.actorId === a.id),
        now,
      ),
    };
  }
  return out;
}

/** Names for the refs grants are scoped to, as the viewer reads them (describeRefs with their authority); unknown ones stay out. */
export async function scopeNames(db: Executor, who: { tenantId: string; userId: string }, grants: { namespace: string; resource_scope: { refs?: string[] } | null }[]): Promise<Record<string, string>> {
  const byNs = new Map<string, Set<string>>();
  for (const g of grants) for (const r of g.resource_scope?.refs ?? []) byNs.set(g.namespace, (byNs.get(g.namespace) ?? new Set()).add(r));
  const out: Record<string, string> = {};
  for (const [ns, refs] of byNs) {
    const realm = await findRealm(db, who.tenantId, ns);
    if (!realm) continue;
    try {
      const d = await describeRefsAs(db, { tenantId: who.tenantId, userId: who.userId, realm, refs: [...refs], appUrl: env().appUrl });
      for (const [ref, v] of Object.entries(d)) if (v?.label) out[ref] = v.label;
    } catch {
      // A realm that cannot describe its refs now: the page shows them as refs.
    }
  }
  return out;
}

/** The body that grants a revoked (or expired) grant again: the same realm, operations and scope, a new expiry. */
export function regrantBody<S>(
  g: { actor_id: string; namespace: string; operations: string[]; all_actions: boolean; resource_scope: S | null },
  expires: "1h" | "1d" | "30d" | "never",
) {
  return { actor_id: g.actor_id, namespace: g.namespace, operations: g.operations, all_actions: g.all_actions, resource_scope: g.resource_scope ?? null, expires };
}

/** The OAuth consent offer as the grouped picker shows it: the same operations, pre-ticked as offered, grouped by area. */
export async function consentPicker(
  db: Executor,
  tenantId: string,
  offer: { realms: { namespace: string; title: string; purpose: string; operations: Omit<PickerOperation, "value">[] }[] },
): Promise<PickerRealm[]> {
  const out: PickerRealm[] = [];
  for (const r of offer.realms) {
    const realm = await findRealm(db, tenantId, r.namespace);
    const ops = r.operations.map((o) => ({ ...o, value: `${r.namespace} ${o.key}` }));
    out.push(
      realm
        ? { ...pickerRealm(realm.manifest, ops), title: r.title, purpose: r.purpose }
        : { namespace: r.namespace, title: r.title, purpose: r.purpose, groups: [{ id: `${r.namespace}:/`, area: r.title, description: r.purpose, operations: ops, counts: countByRisk(ops) }], counts: countByRisk(ops) },
    );
  }
  return out;
}

/** Stands for the agent's token in the configuration snippets; the page puts a just-created token in its place, never another. */
export const TOKEN_PLACEHOLDER = "<AGENT_TOKEN>";

export type McpSnippet = { id: "claude" | "cursor" | "inspector"; label: string; where: string; text: string };

/** Ready-made MCP client configuration for the server at `url`, with the token placeholder. */
export function mcpSnippets(url: string): McpSnippet[] {
  const auth = `Authorization: Bearer ${TOKEN_PLACEHOLDER}`;
  return [
    { id: "claude", label: "Claude Code", where: "Run in a terminal", text: `claude mcp add --transport http realmgate ${url} --header "${auth}"` },
    {
      id: "cursor",
      label: "Cursor",
      where: "Put in .cursor/mcp.json",
      text: JSON.stringify({ mcpServers: { realmgate: { url, headers: { Authorization: `Bearer ${TOKEN_PLACEHOLDER}` } } } }, null, 2),
    },
    { id: "inspector", label: "MCP Inspector (CLI)", where: "Run in a terminal to list the tools", text: `npx @modelcontextprotocol/inspector --cli ${url} --transport http --header "${auth}" --method tools/list` },
  ];
}
