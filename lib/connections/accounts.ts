// Connected accounts: what a person sees of them (never a token), listing, disconnecting (revoking the
// token at the provider first, RFC 7009), and sealing/opening their token sets through the vault.
import { and, asc, eq, ne, sql } from "drizzle-orm";
import type { Db, Executor } from "@/db/client";
import { connectedAccounts, type ConnectedAccount } from "@/db/schema";
import type { UserContext } from "@/lib/authz/context";
import { recordChange } from "@/lib/audit/record";
import { AppError } from "@/lib/errors";
import { revokeToken } from "./oauth";
import { apiFamilies, claimLabel, findProvider } from "./providers";
import { seal, unseal, VaultError } from "./vault";

export type Who = Pick<UserContext, "tenantId" | "userId" | "requestId">;

/** What is sealed: the provider's tokens. Scopes and expiry live in plain columns; they are not secrets. */
export type TokenSet = { access_token: string; refresh_token: string | null };

export type AccountView = {
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
};

export function accountView(a: ConnectedAccount): AccountView {
  const api = apiFamilies[a.api];
  const named = (c: string) => ({ name: c, label: api ? claimLabel(api, c) : c });
  return {
    id: a.id,
    provider: a.provider,
    provider_label: findProvider(a.provider)?.label ?? a.provider,
    api: a.api,
    label: a.label,
    email: a.email,
    status: a.status,
    status_reason: a.statusReason,
    claims: a.claims.map(named),
    missing_claims: (api?.claims ?? []).filter((c) => !a.claims.includes(c.name)).map((c) => named(c.name)),
    created_at: a.createdAt.toISOString(),
    updated_at: a.updatedAt.toISOString(),
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

export async function listAccounts(db: Executor, who: Pick<Who, "tenantId" | "userId">, opts: { includeRevoked?: boolean } = {}): Promise<AccountView[]> {
  const rows = await db
    .select()
    .from(connectedAccounts)
    .where(and(eq(connectedAccounts.tenantId, who.tenantId), eq(connectedAccounts.userId, who.userId), opts.includeRevoked ? undefined : ne(connectedAccounts.status, "revoked")))
    .orderBy(asc(connectedAccounts.createdAt), asc(connectedAccounts.id));
  return rows.map(accountView);
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
    if (provider) {
      revocation = tokens.refresh_token ? await revokeToken(provider, tokens.refresh_token, "refresh_token") : await revokeToken(provider, tokens.access_token, "access_token");
      // A revoked refresh token ends its grant at most providers; revoke the access token too where it may not.
      if (revocation === "revoked" && tokens.refresh_token) await revokeToken(provider, tokens.access_token, "access_token");
    } else revocation = "failed";
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
