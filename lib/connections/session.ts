// What a connected realm uses: gate two over the authority's connected accounts, then calls to the
// provider's API with that account's token — refreshed when expired, bounded in time, never resent blindly.
// The provider classifies its own answers (providers/<id>/); a refused refresh or an access token it no
// longer accepts marks the account `needs_reconnect` and answers with a consent demand. What the call learns
// about the account (a rotated token, a broken connection, refused claims) is recorded through ctx.settled,
// so it is kept even when the call then fails.
import { and, eq, sql } from "drizzle-orm";
import { actors, connectedAccounts, users, type ConnectedAccount } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";
import { AppError } from "@/lib/errors";
import { authorityOf, type RealmContext } from "@/lib/realms/contract";
import { connectedOrder, openTokens, sealTokens, type TokenSet } from "./accounts";
import { consentDemand } from "./demand";
import { gateTwo, type AccountFacts, type GateTwoDecision } from "./gate-two";
import { headerOf, jsonOf, NetError, type NetResponse } from "@/lib/net";
import { providerFailure, providerFetch } from "./http";
import { rateLimited, refreshAccessToken, TokenGrantError } from "./oauth";
import { apiFamily, findProvider, type ProviderConfig, type Verdict } from "./providers";
import { VaultError } from "./vault";

/** Refresh a little before the provider would refuse the token. */
const EXPIRY_MARGIN_MS = 60_000;

export type AccountNeed = {
  api: string;
  /** Claims the operation needs (the manifest's, `<api>:<verb>`). */
  claims: string[];
  namespace: string;
  operation: string;
  /** The account a ref names; only that one may be used. */
  pinnedAccountId: string | null;
  /** The caller's `account` field (label, email or id). */
  selector: string | null;
};

export type ApiCall = {
  method?: "GET" | "POST";
  /** Path under the provider's API base URL. */
  path: string;
  query?: Record<string, string | number | string[] | undefined>;
  /** A JSON body. */
  body?: unknown;
  /** A form-encoded body instead (methods of providers that take no JSON). */
  form?: Record<string, string | number | undefined>;
  /**
   * An effect that must never be sent twice (sending mail). When the provider does not answer, the error
   * says the effect may or may not have happened (this sentence) and nothing is resent.
   */
  once?: string;
};

/** Bytes to or from a URL the provider itself named (a file's download link, an upload slot). */
export type Transfer = {
  /** Absolute; on the API's origin or one of the provider's `tokenOrigins`, else `invalid_input` (the token never goes elsewhere). */
  url: string;
  method?: "GET" | "POST" | "PUT";
  body?: Uint8Array;
  contentType?: string;
  /** Bound on the answer; MAX_PROVIDER_RESPONSE_BYTES by default. */
  maxBytes?: number;
  /** As for ApiCall: an effect never sent twice. */
  once?: string;
};

/** What a transfer brought back, whatever its status: the caller reads it (a provider's file host speaks no API dialect). */
export type Transferred = { status: number; contentType: string | null; headers: Record<string, string | string[] | undefined>; bytes: Uint8Array };

export type AccountSession = {
  account: AccountFacts;
  provider: ProviderConfig;
  call<T = unknown>(req: ApiCall): Promise<T>;
  /**
   * Bytes with the account's token as bearer, from or to a URL the provider named. A 429 is `rate_limited`, no
   * answer `provider_unavailable`; any other status is handed back. The token is refreshed first when it expired.
   */
  transfer(req: Transfer): Promise<Transferred>;
};

const facts = (r: ConnectedAccount): AccountFacts => ({ id: r.id, label: r.label, email: r.email, status: r.status, claims: r.claims, provider: r.provider });

export async function openAccount(ctx: RealmContext, need: AccountNeed): Promise<AccountSession> {
  const authority = authorityOf(ctx.principal);
  const rows = await ctx.tx
    .select()
    .from(connectedAccounts)
    .where(and(eq(connectedAccounts.tenantId, ctx.tenantId), eq(connectedAccounts.userId, authority), eq(connectedAccounts.api, need.api)))
    .orderBy(...connectedOrder); // choices in the order they were connected
  // A grant scoped to one connected account narrows gate two to that account: the others do not exist for it.
  const scopedTo = ctx.grantScope?.account_id;
  const visible = scopedTo ? rows.filter((r) => r.id === scopedTo) : rows;
  const decision = gateTwo({ accounts: visible.map(facts), needClaims: need.claims, pinnedAccountId: need.pinnedAccountId, selector: need.selector });
  if (!decision.allow) throw await denial(ctx, need, decision);

  const row = visible.find((r) => r.id === decision.account.id)!;
  const provider = findProvider(row.provider);
  if (!provider) {
    throw new AppError("provider_unavailable", `The provider of ${row.label} (${row.provider}) is not configured on this Realmgate.`, { status: 503, details: { provider: row.provider, account_id: row.id } });
  }
  return new Session(ctx, need, row, provider);
}

class Session implements AccountSession {
  readonly account: AccountFacts;
  private tokens: TokenSet | null = null;
  private refreshed = false;
  /** The row version the next settled write expects. */
  private version: number;
  private expiresAt: Date | null;

  constructor(
    private readonly ctx: RealmContext,
    private readonly need: AccountNeed,
    private readonly row: ConnectedAccount,
    readonly provider: ProviderConfig,
  ) {
    this.account = facts(row);
    this.version = row.version;
    this.expiresAt = row.tokenExpiresAt;
  }

  async call<T = unknown>(req: ApiCall): Promise<T> {
    await this.ensureToken();
    for (let attempt = 0; ; attempt++) {
      const res = await this.send(req);
      const verdict = this.provider.classify({ status: res.status, body: jsonOf(res) });
      if (verdict.outcome === "auth_invalid") {
        // The provider did not act on a token it refused, so one repeat with a freshly refreshed token is not a blind resend.
        if (attempt === 0 && !this.refreshed && this.tokens!.refresh_token) {
          await this.refresh();
          continue;
        }
        throw await this.broken("the provider no longer accepts this connection");
      }
      const answer = await this.interpret<T>(res, verdict, req);
      this.markUsed();
      return answer;
    }
  }

  private used = false;

  /** The account's last use, for the Connection Hub: stamped once per call that the provider answered. */
  private markUsed() {
    if (this.used) return;
    this.used = true;
    const { id, tenantId } = this.row;
    this.ctx.usedAccount?.(id);
    this.ctx.settled(async (tx) => {
      await tx.update(connectedAccounts).set({ lastUsedAt: new Date() }).where(and(eq(connectedAccounts.id, id), eq(connectedAccounts.tenantId, tenantId)));
    });
  }

  async transfer(req: Transfer): Promise<Transferred> {
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      throw new AppError("invalid_input", `${this.provider.label} named a file address that does not parse.`, { details: { provider: this.provider.id } });
    }
    const allowed = [new URL(this.provider.apiBaseUrl).origin, ...(this.provider.tokenOrigins ?? [])];
    if (!allowed.includes(url.origin)) {
      throw new AppError("invalid_input", `${this.provider.label}'s token is not sent to ${url.host}.`, { details: { provider: this.provider.id, host: url.host } });
    }
    await this.ensureToken();
    const headers: Record<string, string> = { authorization: `Bearer ${this.tokens!.access_token}` };
    if (req.contentType) headers["content-type"] = req.contentType;
    const res = await this.exchange(url.toString(), { method: req.method ?? "GET", headers, body: req.body, maxBytes: req.maxBytes }, req.once);
    if (res.status === 429) throw rateLimited(this.provider, res, "its file transfers", { account_id: this.row.id });
    this.markUsed();
    return { status: res.status, contentType: headerOf(res, "content-type"), headers: res.headers, bytes: new Uint8Array(res.body.buffer, res.body.byteOffset, res.body.byteLength) };
  }

  private async send(req: ApiCall) {
    const url = new URL(`${this.provider.apiBaseUrl}${req.path}`);
    for (const [k, v] of Object.entries(req.query ?? {})) {
      if (v === undefined) continue;
      for (const one of Array.isArray(v) ? v : [v]) url.searchParams.append(k, String(one));
    }
    const headers: Record<string, string> = { authorization: `Bearer ${this.tokens!.access_token}`, accept: "application/json" };
    let body: string | undefined;
    if (req.form !== undefined) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(Object.entries(req.form).filter((e): e is [string, string | number] => e[1] !== undefined).map(([k, v]) => [k, String(v)])).toString();
    } else if (req.body !== undefined) {
      headers["content-type"] = "application/json; charset=utf-8";
      body = JSON.stringify(req.body);
    }
    return this.exchange(url.toString(), { method: req.method ?? "GET", headers, body }, req.once);
  }

  private async exchange(url: string, init: { method: string; headers: Record<string, string>; body?: string | Uint8Array; maxBytes?: number }, once: string | undefined): Promise<NetResponse> {
    try {
      return await providerFetch(url, init);
    } catch (err) {
      if (!(err instanceof NetError)) throw err;
      const f = providerFailure(err);
      const what = f.kind === "timeout" ? "did not answer in time" : f.kind === "too_large" ? "answered with more data than Realmgate accepts" : "could not be reached";
      throw new AppError("provider_unavailable", `${this.provider.label} ${what}.${once ? ` ${once}` : ""} Nothing was retried.`, {
        status: f.status,
        details: { provider: this.provider.id, account_id: this.row.id, failure: f.kind, retried: false, ...(once ? { may_have_taken_effect: true } : {}) },
        cause: err,
      });
    }
  }

  private async interpret<T>(res: NetResponse, verdict: Verdict, req: ApiCall): Promise<T> {
    if (verdict.outcome === "ok") return (jsonOf(res) ?? {}) as T;
    const said = verdict.message ?? `status ${res.status}`;
    if (verdict.outcome === "missing_scope") {
      // The provider knows better than our record: forget the claims it just refused — those asking for the
      // scopes it says were needed, when it says, else the ones the operation declares.
      const missing = this.refusedClaims(verdict.scopes);
      this.dropClaims(missing);
      throw await denial(this.ctx, this.need, { allow: false, kind: "demand", reason: "claim_upgrade_required", missingClaims: missing, candidates: [this.account], account: { ...this.account, claims: this.account.claims.filter((c) => !missing.includes(c)) } });
    }
    if (verdict.outcome === "denied") throw new AppError("realm_denied", `${this.provider.label} refused: ${said}`, { details: { provider: this.provider.id, account_id: this.row.id } });
    if (verdict.outcome === "not_found") throw new AppError("not_found", `${this.provider.label} has no such object (or it was deleted).`, { details: { provider: this.provider.id } });
    if (verdict.outcome === "unavailable") {
      // A 429, as imported services answer one: rate_limited, with the provider's Retry-After.
      if (res.status === 429) throw rateLimited(this.provider, res, "calls with this account", { account_id: this.row.id, ...(verdict.message ? { provider_message: verdict.message } : {}) });
      const retryAfter = headerOf(res, "retry-after");
      throw new AppError("provider_unavailable", `${this.provider.label} is unavailable (${res.status}).${req.once && res.status >= 500 ? ` ${req.once}` : ""} Nothing was retried.`, {
        status: res.status === 503 ? 503 : 502,
        headers: retryAfter && /^\d{1,6}$/.test(retryAfter) ? { "Retry-After": retryAfter } : {},
        details: { provider: this.provider.id, account_id: this.row.id, provider_status: res.status, retried: false, ...(req.once && res.status >= 500 ? { may_have_taken_effect: true } : {}) },
      });
    }
    throw new AppError("invalid_input", `${this.provider.label} refused the request: ${said}`, { details: { provider: this.provider.id, provider_status: res.status } });
  }

  private async ensureToken(): Promise<void> {
    if (!this.tokens) {
      try {
        this.tokens = openTokens(this.row);
      } catch (err) {
        if (!(err instanceof VaultError)) throw err;
        throw await this.broken(err.reason === "unknown_key" ? "its stored credentials were sealed with a key this server does not have" : "its stored credentials cannot be read");
      }
    }
    if (this.expiresAt && this.expiresAt.getTime() - EXPIRY_MARGIN_MS <= this.ctx.now.getTime()) await this.refresh();
  }

  private async refresh(): Promise<void> {
    const refreshToken = this.tokens!.refresh_token;
    if (!refreshToken) throw await this.broken("its access expired and the provider gave no way to renew it");
    let t;
    try {
      t = await refreshAccessToken(this.provider, refreshToken);
    } catch (err) {
      if (err instanceof TokenGrantError) throw await this.broken("the provider refused to renew its access");
      throw err;
    }
    this.tokens = { access_token: t.access_token, refresh_token: t.refresh_token ?? refreshToken };
    this.refreshed = true;
    this.expiresAt = t.expires_in ? new Date(this.ctx.now.getTime() + t.expires_in * 1000) : null;
    const sealed = sealTokens(this.row, this.tokens);
    const expected = this.version++;
    const expiresAt = this.expiresAt;
    // A provider that rotates refresh tokens has already invalidated the old one: this must be kept even if the call fails.
    this.ctx.settled(async (tx) => {
      await tx
        .update(connectedAccounts)
        .set({ ...sealed, tokenExpiresAt: expiresAt, version: sql`${connectedAccounts.version} + 1`, updatedAt: new Date() })
        .where(and(eq(connectedAccounts.id, this.row.id), eq(connectedAccounts.tenantId, this.row.tenantId), eq(connectedAccounts.version, expected)));
    });
  }

  private refusedClaims(scopes: string[] | undefined): string[] {
    if (!scopes?.length) return this.need.claims;
    const asking = apiFamily(this.need.api).claims.filter((c) => (typeof c.request === "string" ? [c.request] : c.request).some((s) => scopes.includes(s)));
    return asking.length ? asking.map((c) => c.name) : this.need.claims;
  }

  private dropClaims(claims: string[]) {
    const expected = this.version++;
    const keep = this.account.claims.filter((c) => !claims.includes(c));
    this.ctx.settled(async (tx) => {
      await tx
        .update(connectedAccounts)
        .set({ claims: keep, version: sql`${connectedAccounts.version} + 1`, updatedAt: new Date() })
        .where(and(eq(connectedAccounts.id, this.row.id), eq(connectedAccounts.tenantId, this.row.tenantId), eq(connectedAccounts.version, expected)));
    });
  }

  /** Record that the account needs reconnecting (after this call), and answer with the demand to do so. */
  private async broken(why: string): Promise<AppError> {
    const expected = this.version++;
    const { ctx, row } = this;
    const principal = ctx.principal.type === "user" ? ({ type: "user", userId: ctx.principal.userId } as const) : ({ type: "actor", actorId: ctx.principal.actorId, grantorId: ctx.principal.grantorId } as const);
    ctx.settled(async (tx) => {
      const [changed] = await tx
        .update(connectedAccounts)
        .set({ status: "needs_reconnect", statusReason: why, version: sql`${connectedAccounts.version} + 1`, updatedAt: new Date() })
        .where(and(eq(connectedAccounts.id, row.id), eq(connectedAccounts.tenantId, row.tenantId), eq(connectedAccounts.status, "active"), eq(connectedAccounts.version, expected)))
        .returning({ id: connectedAccounts.id });
      if (changed) {
        await recordAudit(tx, {
          tenantId: row.tenantId,
          event: "account.needs_reconnect",
          principal,
          requestId: ctx.requestId,
          namespace: this.need.namespace,
          operation: this.need.operation,
          outcome: "ok",
          subjectId: row.id,
          reason: why,
          details: { provider: row.provider, label: row.label },
        });
      }
    });
    return denial(ctx, this.need, { allow: false, kind: "demand", reason: "reconnect_required", missingClaims: [], candidates: [this.account], account: { ...this.account, status: "needs_reconnect" } }, why);
  }
}

type Denied = Exclude<GateTwoDecision, { allow: true }>;

async function denial(ctx: RealmContext, need: AccountNeed, d: Denied, note?: string): Promise<AppError> {
  const api = apiFamily(need.api);
  if (d.kind === "not_found") return new AppError("not_found", "No such object (or you may not see it).", { details: { namespace: need.namespace } });
  if (d.kind === "ambiguous") {
    return new AppError("ambiguous_selector", `${d.choices.length} connected ${api.label.toLowerCase()} accounts could serve this call; name one with "account" (its label or email) and call again.`, {
      details: { field: "account", choices: d.choices.map((c) => ({ account_id: c.id, label: c.label, email: c.email, status: c.status, claims: c.claims })) },
    });
  }
  const authority = authorityOf(ctx.principal);
  const [u] = await ctx.tx.select({ name: users.name }).from(users).where(eq(users.id, authority));
  let actor: { id: string; name: string } | null = null;
  if (ctx.principal.type === "actor") {
    const [a] = await ctx.tx.select({ name: actors.name }).from(actors).where(and(eq(actors.id, ctx.principal.actorId), eq(actors.tenantId, ctx.tenantId)));
    actor = { id: ctx.principal.actorId, name: a?.name ?? "the agent" };
  }
  return consentDemand({
    reason: d.reason,
    api,
    namespace: need.namespace,
    operation: need.operation,
    missingClaims: d.missingClaims,
    candidates: d.candidates,
    account: d.account,
    selector: need.selector,
    appUrl: ctx.appUrl,
    actor,
    grantorName: u?.name ?? "your user",
    note,
  });
}
