// The Slack Web API family: Realmgate's Slack claims and the user-token scopes that satisfy them, and Slack's
// own dialect — the OAuth v2 token answer (the user token nested under `authed_user`, scopes comma-separated),
// identity from `auth.test` (+ `users.info` for the email), revocation by `auth.revoke`, and errors as
// HTTP 200 `{ ok: false, error }` (429 with Retry-After when rate-limited). Any provider speaking this API
// (Slack itself, or a compatible server) uses these scope names and this classification.
import { tokenResponse } from "../tokens";
import type { ApiFamily, ApiProbe, Identity, ProviderAnswer, RevocationStrategy, TokenAnswer, Verdict } from "../types";

/** Every scope `slack:read` needs: conversations of each type, their history, search, and people with their emails. */
export const SLACK_READ_SCOPES = [
  "channels:read",
  "groups:read",
  "im:read",
  "mpim:read",
  "channels:history",
  "groups:history",
  "im:history",
  "mpim:history",
  "search:read",
  "users:read",
  "users:read.email",
] as const;
export const SLACK_WRITE_SCOPES = ["chat:write", "reactions:write"] as const;

export const slackApi: ApiFamily = {
  id: "slack",
  label: "Slack",
  claims: [
    { name: "slack:read", label: "Read your channels, messages and people", request: [...SLACK_READ_SCOPES], satisfiedBy: [[...SLACK_READ_SCOPES]] },
    { name: "slack:files:read", label: "Open files shared with you", request: "files:read", satisfiedBy: ["files:read"] },
    { name: "slack:write", label: "Post messages and reactions as you", request: [...SLACK_WRITE_SCOPES], satisfiedBy: [[...SLACK_WRITE_SCOPES]] },
    { name: "slack:files:write", label: "Upload files as you", request: "files:write", satisfiedBy: ["files:write"] },
  ],
};

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === "string" && v ? v : null);

/** Slack's word for a failure that is Slack's, not the request's: the same request may work later. */
const TRANSIENT = new Set(["ratelimited", "internal_error", "fatal_error", "service_unavailable", "request_timeout"]);
/** The token is no longer accepted: refresh once (a rotating token expired), then reconnect. */
const AUTH_INVALID = new Set(["invalid_auth", "not_authed", "token_revoked", "token_expired", "account_inactive", "no_such_token"]);
const NOT_FOUND = new Set(["channel_not_found", "message_not_found", "file_not_found", "file_deleted", "thread_not_found", "user_not_found", "users_not_found"]);
/** Slack refuses this person the call (the channel's or workspace's rules), whatever the token's scopes. */
const DENIED = new Set(["not_in_channel", "restricted_action", "no_permission", "access_denied", "is_archived", "ekm_access_denied", "team_access_not_granted", "cant_update_message", "cant_delete_message"]);

/** Slack's words for an answer: its `error`, and for a missing scope what it needed and what the token has. */
function slackMessage(body: unknown): string | null {
  if (!isObj(body)) return null;
  const error = str(body.error);
  if (!error) return null;
  if (error === "missing_scope") {
    const needed = str(body.needed);
    const provided = str(body.provided);
    return `missing_scope${needed ? ` (needed: ${needed}${provided ? `; provided: ${provided}` : ""})` : ""}`.slice(0, 300);
  }
  return error.slice(0, 300);
}

export function classifySlackApi({ status, body }: ProviderAnswer): Verdict {
  const message = slackMessage(body);
  if (status === 429) return { outcome: "unavailable", message: message ?? "ratelimited" };
  if (status >= 500) return { outcome: "unavailable", message };
  if (status >= 200 && status < 300) {
    // Slack answers HTTP 200 either way; `ok` says which. A 2xx without `ok: false` (a file host, an empty body) is a success.
    if (!isObj(body) || body.ok !== false) return { outcome: "ok", message: null };
    const error = str(body.error) ?? "unknown_error";
    if (error === "missing_scope") {
      const needed = str(body.needed)?.split(/[\s,]+/).filter(Boolean) ?? [];
      return { outcome: "missing_scope", message, ...(needed.length ? { scopes: needed } : {}) };
    }
    if (AUTH_INVALID.has(error)) return { outcome: "auth_invalid", message };
    if (NOT_FOUND.has(error)) return { outcome: "not_found", message };
    if (DENIED.has(error)) return { outcome: "denied", message };
    if (TRANSIENT.has(error)) return { outcome: "unavailable", message };
    return { outcome: "rejected", message: message ?? error };
  }
  if (status === 401) return { outcome: "auth_invalid", message };
  if (status === 403) return { outcome: "denied", message };
  if (status === 404 || status === 410) return { outcome: "not_found", message };
  return { outcome: "rejected", message };
}

/**
 * `oauth.v2.access` as a token response. A sign-in answers with the user token under `authed_user` (the top
 * level holds a bot token, if the app asked for bot scopes — never used here); a refresh of a rotating user token
 * answers at the top level with `token_type: "user"`. Scopes come comma-separated and leave space-separated.
 * `ok: false` is a refusal in Slack's words, except Slack's own failures (unusable: null).
 */
export function mapSlackTokens(raw: unknown): TokenAnswer {
  if (!isObj(raw)) return null;
  if (raw.ok !== true) {
    const error = str(raw.error);
    return error && !TRANSIENT.has(error) ? { refused: error } : null;
  }
  const nested = isObj(raw.authed_user) && str(raw.authed_user.access_token) ? raw.authed_user : null;
  const src = nested ?? raw;
  if (str(src.token_type)?.toLowerCase() !== "user") return null;
  const parsed = tokenResponse.safeParse({
    access_token: src.access_token,
    token_type: "Bearer",
    expires_in: src.expires_in,
    refresh_token: src.refresh_token,
    scope: typeof src.scope === "string" ? src.scope.split(/[\s,]+/).filter(Boolean).join(" ") : undefined,
  });
  return parsed.success ? parsed.data : null;
}

/**
 * Who signed in: `auth.test` names the workspace and the user (the account is one per workspace and user:
 * `sub` is `<team_id>:<user_id>`), `users.info` their email when the token may read it (`users:read.email`).
 * The label names the workspace: "Acme (alice@acme.test)", or "Acme (@alice)" without an email.
 */
export async function slackIdentity(call: ApiProbe): Promise<Identity | null> {
  const who = await call({ method: "POST", path: "/auth.test" });
  const b = who.status === 200 && isObj(who.body) && who.body.ok === true ? who.body : null;
  const team = str(b?.team_id);
  const user = str(b?.user_id);
  if (!b || !team || !user) return null;
  let email: string | null = null;
  const info = await call({ path: "/users.info", query: { user } });
  if (info.status === 200 && isObj(info.body) && info.body.ok === true && isObj(info.body.user)) {
    const u = info.body.user;
    const profile = isObj(u.profile) ? u.profile : {};
    // Slack says when an address was never confirmed; an unconfirmed one does not name the person.
    if (u.is_email_confirmed !== false) email = str(profile.email);
  }
  const workspace = str(b.team) ?? team;
  const handle = str(b.user);
  return { sub: `${team}:${user}`, email, label: `${workspace} (${email ?? (handle ? `@${handle}` : user)})` };
}

/** The workspace of an account (`sub` is `<team_id>:<user_id>`): Slack's authorize page opens on it (`team`). */
export function slackAccountHint(account: { externalId: string }): Record<string, string> {
  const team = account.externalId.split(":")[0];
  return team && /^[A-Z0-9]+$/.test(team) ? { team } : {};
}

/** `auth.revoke` with the token as bearer: `{ ok: true, revoked: true }`; a token Slack already ended counts as revoked. */
export const slackRevocation: RevocationStrategy = {
  kind: "api",
  method: "POST",
  path: "/auth.revoke",
  revoked: ({ status, body }) => status === 200 && isObj(body) && ((body.ok === true && body.revoked === true) || (body.ok === false && (body.error === "token_revoked" || body.error === "account_inactive"))),
};
