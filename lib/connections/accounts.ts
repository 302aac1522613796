// Connected accounts: what a person sees of them (never a token), listing, disconnecting (revoking the
// token at the provider first: RFC 7009, or the provider's own API), and sealing/opening their token sets through the vault.
import { accountName } from "./gate-two";
import { and, asc, desc, eq, gt, inArray, isNotNull, isNull, ne, or, sql } from "drizzle-orm";
import type { Db, Executor } from "@/db/client";
import { actors, auditEvents, connectedAccounts, grants, type ConnectedAccount } from "@/db/schema";
import type { UserContext } from "@/lib/authz/context";
import { recordChange } from "@/lib/audit/record";
import { AppError } from "@/lib/errors";
import { revokeGrant } from "./oauth";
import { apiFamilies, claimLabel, findProvider } from "./providers";
import { seal, unseal, VaultError } from "./vault";

/** A person's connected accounts in the order they were connected; accounts connected in the same millisecond by label. */
export const connectedOrder = [asc(connectedAccounts.createdAt), asc(connectedAccounts.label), asc(connectedAccounts.id)];

export type Who = Pick<UserContext, "tenantId" | "userId" | "requestId">;

/** What is sealed: the provider's tokens. Scopes and expiry live in plain columns; they are not secrets. */
export type TokenSet = { access_token: string; refresh_token: string | null };

export type AccountView = {
  /** How pages name it: its email, or its label when the label already says the email (two workspaces, one email). */
  name: string;
  id: string;
  provider: string;
  provider_label: string;
  api: string;
  label: string;
  email: string | null;
  status: ConnectedAccount["status"];
  status_reason: string | null;
  claims: { name: string; label: string }[];
  missing_claims: { name: string; label: string }[];
  created_at: string;
  updated_at: string;
  /** When the account was first connected here. */
  connected_at: string;
  /** The last time a call reached the provider with this account (null: never used). */
  last_used_at: string | null;
  /** How a permission is removed (flows.ts `narrow`): asked again for the rest, or revoked at the provider first. */
  narrowing: "reconsent" | "revoke_first";
  /** With `usage`: the agents holding a live grant scoped to this account, or that used it. */
  agents?: AccountAgent[];
};

/** An agent that reaches one account: through a grant scoped to it (`scoped`) and/or by calls that used it. */
export type AccountAgent = { id: string; name: string; scoped: boolean; used_at: string | null };

/** How removing a permission works at a provider: asked again for the rest, or revoked first and asked again. */
export const narrowingOf = (p: { incremental: "missing_only" | "union" }): "reconsent" | "revoke_first" => (p.incremental === "union" ? "reconsent" : "revoke_first");

export function accountView(a: ConnectedAccount): AccountView {
  const provider = findProvider(a.provider);
  const api = apiFamilies[a.api];
  const named = (c: string) => ({ name: c, label: api ? claimLabel(api, c) : c });
  return {
    name: accountName(a),
    id: a.id,
    provider: a.provider,
    provider_label: provider?.label ?? a.provider,
    api: a.api,
    label: a.label,
    email: a.email,
    status: a.status,
    status_reason: a.statusReason,
    claims: a.claims.map(named),
    missing_claims: (api?.claims ?? []).filter((c) => !a.claims.includes(c.name)).map((c) => named(c.name)),
    created_at: a.createdAt.toISOString(),
    updated_at: a.updatedAt.toISOString(),
    connected_at: a.createdAt.toISOString(),
    last_used_at: a.lastUsedAt?.toISOString() ?? null,
    narrowing: provider ? narrowingOf(provider) : "revoke_first",
  };
}

const binding = (a: Pick<ConnectedAccount, "tenantId" | "userId" | "id">) => ({ tenantId: a.tenantId, userId: a.userId, accountId: a.id });

export function sealTokens(a: Pick<ConnectedAccount, "tenantId" | "userId" | "id">, tokens: TokenSet): { secretKid: string; secret: string } {
  const s = seal(JSON.stringify(tokens), binding(a));
  return { secretKid: s.kid, secret: s.data };
}

/** The account's tokens; throws VaultError when they are missing or do not open for this row. */
export function openTokens(a: Pick<ConnectedAccount, "tenantId" | "userId" | "id" | "secret" | "secretKid">): TokenSet {
  if (!a.secret || !a.secretKid) throw new VaultError("unreadable", "No tokens are stored for this account.");
  const parsed: unknown = JSON.parse(unseal({ kid: a.secretKid, data: a.secret }, binding(a)));
  const t = parsed as Partial<TokenSet>;
  if (typeof t.access_token !== "string") throw new VaultError("unreadable", "The stored token set is malformed.");
  return { access_token: t.access_token, refresh_token: typeof t.refresh_token === "string" ? t.refresh_token : null };
}

/** `usage`: also which agents reach each account (the Connection Hub's list; two reads more). */
export async function listAccounts(db: Executor, who: Pick<Who, "tenantId" | "userId">, opts: { includeRevoked?: boolean; usage?: boolean } = {}): Promise<AccountView[]> {
  const rows = await db
    .select()
    .from(connectedAccounts)
    .where(and(eq(connectedAccounts.tenantId, who.tenantId), eq(connectedAccounts.userId, who.userId), opts.includeRevoked ? undefined : ne(connectedAccounts.status, "revoked")))
    .orderBy(...connectedOrder);
  const views = rows.map(accountView);
  if (!opts.usage || views.length === 0) return views;
  const agents = await accountAgents(db, who, views.map((v) => v.id));
  return views.map((v) => {
    const list = agents.get(v.id) ?? [];
    // The audit may know a later use than the account's own stamp (a call that used it by ref); show the latest.
    const fromAudit = list.reduce<string | null>((m, a) => (a.used_at && (!m || a.used_at > m) ? a.used_at : m), null);
    const last = [v.last_used_at, fromAudit].filter((x): x is string => x !== null).sort().at(-1) ?? null;
    return { ...v, last_used_at: last, agents: list };
  });
}

/**
 * The agents of the person that reach each account: live grants scoped to it (`{account_id}`), and allowed tool
 * calls whose ref names it (a connected realm's refs carry the account id: `mail:gmail:acc_…:message:…`).
 */
export async function accountAgents(db: Executor, who: Pick<Who, "tenantId" | "userId">, accountIds: string[], now = new Date()): Promise<Map<string, AccountAgent[]>> {
  const out = new Map<string, Map<string, AccountAgent>>(accountIds.map((id) => [id, new Map()]));
  const scopedAccount = sql<string>`${grants.resourceScope}->>'account_id'`;
  const [scoped, used] = await Promise.all([
    db
      .select({ accountId: scopedAccount, actorId: actors.id, name: actors.name })
      .from(grants)
      .innerJoin(actors, eq(actors.id, grants.actorId))
      .where(
        and(
          eq(grants.tenantId, who.tenantId),
          eq(grants.grantorId, who.userId),
          isNull(grants.revokedAt),
          isNull(actors.revokedAt),
          or(isNull(grants.expiresAt), gt(grants.expiresAt, now)),
          inArray(scopedAccount, accountIds),
        ),
      ),
    db
      .select({ ref: auditEvents.ref, account: sql<string | null>`${auditEvents.details}->'account_ids'->>0`, actorId: actors.id, name: actors.name, at: sql<string>`max(${auditEvents.at})` })
      .from(auditEvents)
      .innerJoin(actors, eq(actors.id, auditEvents.actorId))
      .where(
        and(
          eq(auditEvents.tenantId, who.tenantId),
          eq(auditEvents.userId, who.userId),
          eq(auditEvents.event, "tool.call"),
          eq(auditEvents.outcome, "allow"),
          // The account the call says it used (details.account_ids), or one its ref names.
          or(
            sql`${auditEvents.details}->'account_ids' ?| ${sql`array[${sql.join(accountIds.map((id) => sql`${id}`), sql`, `)}]::text[]`}`,
            and(isNotNull(auditEvents.ref), or(...accountIds.map((id) => sql`strpos(${auditEvents.ref}, ${`:${id}`}) > 0`))),
          ),
        ),
      )
      .groupBy(auditEvents.ref, sql`${auditEvents.details}->'account_ids'->>0`, actors.id, actors.name)
      .orderBy(desc(sql`max(${auditEvents.at})`))
      .limit(500),
  ]);
  for (const g of scoped) {
    const m = out.get(g.accountId);
    if (m) m.set(g.actorId, { id: g.actorId, name: g.name, scoped: true, used_at: m.get(g.actorId)?.used_at ?? null });
  }
  for (const u of used) {
    const id = accountIds.find((a) => u.account === a || (u.ref !== null && (u.ref.includes(`:${a}:`) || u.ref.endsWith(`:${a}`))));
    const m = id ? out.get(id) : undefined;
    if (!m) continue;
    const at = new Date(u.at).toISOString();
    const prev = m.get(u.actorId);
    m.set(u.actorId, { id: u.actorId, name: u.name, scoped: prev?.scoped ?? false, used_at: prev?.used_at && prev.used_at > at ? prev.used_at : at });
  }
  return new Map([...out].map(([id, m]) => [id, [...m.values()].sort((a, b) => a.name.localeCompare(b.name))]));
}

/** One of the caller's own accounts; anyone else's answers not_found. */
export async function ownAccount(db: Executor, who: Pick<Who, "tenantId" | "userId">, id: string): Promise<ConnectedAccount> {
  const [row] = await db
    .select()
    .from(connectedAccounts)
    .where(and(eq(connectedAccounts.id, id), eq(connectedAccounts.tenantId, who.tenantId), eq(connectedAccounts.userId, who.userId)));
  if (!row) throw new AppError("not_found", "No such connected account.", { details: { account_id: id.slice(0, 64) } });
  return row;
}

export type Disconnected = AccountView & { provider_revocation: "revoked" | "unsupported" | "failed" | "no_token" };

/**
 * Disconnect: revoke the token at the provider (outside any transaction: it is an HTTP call), then forget
 * the tokens and mark the account revoked. A provider that cannot be reached does not keep the account
 * connected here; the answer says so.
 */
export async function disconnectAccount(db: Db, who: Who, id: string): Promise<Disconnected> {
  const row = await ownAccount(db, who, id);
  if (row.status === "revoked") throw new AppError("not_found", "That account is not connected.", { details: { account_id: id } });
  let revocation: Disconnected["provider_revocation"] = "no_token";
  const provider = findProvider(row.provider);
  try {
    const tokens = openTokens(row);
    // By the provider's revocation strategy (RFC 7009 unless it says otherwise): oauth.ts revokeGrant.
    revocation = provider ? await revokeGrant(provider, tokens) : "failed";
  } catch (err) {
    if (!(err instanceof VaultError)) throw err;
  }
  return db.transaction(async (tx) => {
    const [updated] = await tx
      .update(connectedAccounts)
      .set({ status: "revoked", statusReason: "Disconnected", secret: null, secretKid: null, tokenExpiresAt: null, version: sql`${connectedAccounts.version} + 1`, updatedAt: new Date() })
      .where(and(eq(connectedAccounts.id, row.id), eq(connectedAccounts.tenantId, who.tenantId), eq(connectedAccounts.userId, who.userId), ne(connectedAccounts.status, "revoked")))
      .returning();
    if (!updated) throw new AppError("not_found", "That account is not connected.", { details: { account_id: id } });
    await recordChange(tx, who, "account.disconnected", {
      subjectId: row.id,
      details: { provider: row.provider, label: row.label, provider_revocation: revocation },
    });
    return { ...accountView(updated), provider_revocation: revocation };
  });
}
