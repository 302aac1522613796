// The Slack Web API wire: the resources (only the fields used), the account session every call goes through
// (gate two and the provider calls live in lib/connections), and the two byte transfers Slack's files need —
// a download with the account's token, an upload to the URL Slack hands out — which never leave the server.
import type { AccountSession, ApiCall, Transfer, Transferred } from "@/lib/connections/session";
import { openAccount } from "@/lib/connections/session";
import { MAX_LIVE_BYTES } from "@/lib/delivery/port";
import { AppError, isAppError } from "@/lib/errors";
import { bareHost } from "@/lib/net";
import type { RealmContext } from "@/lib/realms/contract";
import { manifest } from "./manifest";

export const API = manifest.connection!.api;
export const CONCURRENCY = 5;
/** How long a file's bytes may take to come or go. */

export type SlackFile = { id: string; name?: string; title?: string; mimetype?: string; filetype?: string; size?: number; url_private?: string; url_private_download?: string; user?: string; created?: number; mode?: string };
export type SlackMessage = {
  type?: string;
  ts: string;
  user?: string;
  username?: string;
  bot_id?: string;
  text?: string;
  thread_ts?: string;
  reply_count?: number;
  latest_reply?: string;
  files?: SlackFile[];
  reactions?: { name: string; count: number; users?: string[] }[];
  channel?: { id: string; name?: string };
  permalink?: string;
};
export type SlackChannel = { id: string; name?: string; is_channel?: boolean; is_group?: boolean; is_im?: boolean; is_mpim?: boolean; is_private?: boolean; is_archived?: boolean; user?: string; topic?: { value?: string }; purpose?: { value?: string }; num_members?: number };
export type SlackUser = { id: string; name?: string; real_name?: string; deleted?: boolean; is_bot?: boolean; profile?: { display_name?: string; real_name?: string; title?: string; email?: string } };
type Answer = { ok?: boolean; error?: string; response_metadata?: { next_cursor?: string } };

/** A Slack timestamp as an ISO date. */
export const dateOfTs = (ts: string) => new Date(Math.floor(Number(ts) * 1000)).toISOString();
/** The timestamp one microsecond before `ts` (the end of the window before a message). */
export function tsBefore(ts: string): string {
  const [s, us] = ts.split(".");
  const n = BigInt(s!) * 1_000_000n + BigInt(us!) - 1n;
  return `${n / 1_000_000n}.${String(n % 1_000_000n).padStart(6, "0")}`;
}
export const personName = (u: SlackUser) => u.profile?.display_name || u.profile?.real_name || u.real_name || u.name || u.id;

/** One of the authority's connected workspaces, through gate two (lib/connections): pinned by a ref, or chosen by a selector. */
export function open(ctx: RealmContext, operation: string, claims: string[], where: { pinned?: string | null; selector?: string | null }) {
  return openAccount(ctx, { api: API, claims, namespace: manifest.namespace, operation, pinnedAccountId: where.pinned ?? null, selector: where.selector ?? null });
}

/**
 * One Web API method. Slack answers HTTP 200 with `{ok: false, error}` for refusals; the provider's classify turns
 * the ones about the connection (missing_scope, invalid_auth…) into demands. Whatever reaches here with ok false
 * is the object's or the request's: `*_not_found` is not_found, the rest invalid_input naming Slack's error.
 */
export async function slack<T extends object>(s: AccountSession, method: string, args: Record<string, string | number | undefined> | { json: Record<string, unknown> }, opts: { once?: string } = {}): Promise<T & Answer> {
  const req: ApiCall = "json" in args ? { method: "POST", path: `/${method}`, body: args.json, once: opts.once } : { path: `/${method}`, query: args as ApiCall["query"] };
  const res = await s.call<T & Answer>(req);
  if (res && res.ok === false) {
    const error = String(res.error ?? "unknown_error").slice(0, 80);
    if (/_not_found$|^not_in_channel$/.test(error)) throw new AppError("not_found", `Slack has no such object here (${error}).`, { details: { provider_error: error } });
    throw new AppError("invalid_input", `Slack refused ${method}: ${error}.`, { details: { provider_error: error } });
  }
  return res;
}

export const nextCursor = (res: Answer) => res.response_metadata?.next_cursor || null;

export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

/** A provider answer, or null when the realm refuses or cannot say (not found, no such account, a demand, an outage). */
export async function orNull<T>(p: Promise<T>): Promise<T | null> {
  try {
    return await p;
  } catch (err) {
    if (isAppError(err)) return null;
    throw err;
  }
}

/**
 * Where Slack keeps a workspace's file bytes: its own file host, or (a local Slack-compatible server) the API's
 * host. The account's token is sent nowhere else, whatever a file's URL says.
 */
export function fileHostAllowed(s: AccountSession, url: URL): boolean {
  const api = new URL(s.provider.apiBaseUrl);
  // On the API's own origin (a local Slack serves files there), never an API method's path: a file's URL is not a call.
  const apiPath = api.pathname.replace(/\/+$/, "");
  const underApi = apiPath !== "" && (url.pathname === apiPath || url.pathname.startsWith(`${apiPath}/`));
  if (bareHost(url) === bareHost(api) && url.protocol === api.protocol && url.port === api.port) return !underApi;
  return url.protocol === "https:" && /^(files|files-edge|files-origin)\.slack\.com$/.test(bareHost(url)) && /(^|\.)slack\.com$/.test(bareHost(api));
}


/** A byte transfer with the account's token, through the session (refreshed token, the provider's token origins, 429 as rate_limited). */
async function transfer(s: AccountSession, req: Transfer, what: string): Promise<Transferred> {
  const target = new URL(req.url);
  if (!fileHostAllowed(s, target)) throw new AppError("provider_unavailable", `Slack named a ${what} location Realmgate does not send tokens to.`, { status: 502, details: { provider: s.provider.id, host: bareHost(target) } });
  return s.transfer(req);
}

/** A file's bytes with the account's token (Slack's file URLs need it), bounded. The session has opened the account (gate two) just before. */
export async function downloadFile(ctx: RealmContext, s: AccountSession, url: string, mimetype: string | null): Promise<{ contentType: string | null; bytes: Uint8Array }> {
  const res = await transfer(s, { url, maxBytes: MAX_LIVE_BYTES }, "file download");
  if (res.status === 404 || res.status === 410) throw new AppError("not_found", "Slack no longer has this file.");
  if (res.status >= 500) throw new AppError("provider_unavailable", `Slack is unavailable (${res.status}). Nothing was retried.`, { status: 502, details: { provider: s.provider.id, provider_status: res.status, retried: false } });
  // Slack answers a token it does not accept for a file with its HTML sign-in page, not an error status.
  const signInPage = (res.contentType ?? "").startsWith("text/html") && !(mimetype ?? "").startsWith("text/html");
  if (res.status !== 200 || signInPage) throw new AppError("forbidden", "Slack refused the file to this account.", { details: { provider_status: res.status } });
  return { contentType: res.contentType, bytes: res.bytes };
}

/** Step two of Slack's external upload: the bytes to the URL files.getUploadURLExternal gave. */
export async function sendUploadBytes(ctx: RealmContext, s: AccountSession, uploadUrl: string, bytes: Uint8Array, contentType: string, once: string): Promise<void> {
  const res = await transfer(s, { url: uploadUrl, method: "POST", body: bytes, contentType, maxBytes: 64 * 1024, once }, "file upload");
  if (res.status !== 200) throw new AppError("provider_unavailable", `Slack did not take the file (${res.status}). ${once} Nothing was retried.`, { status: 502, details: { provider: s.provider.id, provider_status: res.status, retried: false, may_have_taken_effect: true } });
}
