// For this folder's tests: a small Slack stand-in on a local port, answering in Slack's wire format — OAuth v2
// (`user_scope`, PKCE, the user token under `authed_user`, cumulative user scopes, optional token rotation),
// `auth.test`, `users.info`, `auth.revoke`, `api.test` (echoing its arguments), one read and one write method with `missing_scope`, and a
// rate-limited mode (HTTP 429 with Retry-After). `approve` plays the person on Slack's authorize page.
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type StubUser = { team: string; teamName: string; user: string; handle: string; email: string };
type Grant = { scopes: Set<string> };
type AccessToken = { key: string; expiresAt: number | null; revoked: boolean };

export type SlackStub = {
  url: string;
  env: Record<string, string>;
  /** Every API method called, in order (`auth.revoke`, `oauth.v2.access`…). */
  calls: string[];
  /** Rotation on: tokens expire in `expiresIn` seconds and come with a refresh token. */
  rotation: { on: boolean; expiresIn: number };
  /** Set: every API method answers 429 `ratelimited` with this Retry-After. */
  faults: { retryAfter: string | null; tokenEndpoint429: boolean };
  /** Scopes a person holds at a workspace, by `team:user`. */
  granted(team: string, user: string): string[];
  /** Play the person: consent on the authorize page as `who` and return the callback URL Slack redirects to. */
  approve(authorizationUrl: string, who: StubUser, opts?: { deny?: boolean }): string;
  /** Expire every access token issued so far (a rotating token's 12 hours gone by). */
  expireAll(): void;
  close(): Promise<void>;
};

export const CLIENT_ID = "1111.2222";
export const CLIENT_SECRET = "stub-secret";

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let b = "";
    req.on("data", (c: Buffer) => (b += c.toString("utf8")));
    req.on("end", () => resolve(b));
  });

export async function startSlackStub(): Promise<SlackStub> {
  const grants = new Map<string, Grant>();
  const codes = new Map<string, { key: string; redirectUri: string; challenge: string }>();
  const tokens = new Map<string, AccessToken>();
  const refreshTokens = new Map<string, string>(); // refresh token → grant key
  const users = new Map<string, StubUser>();
  const calls: string[] = [];
  const rotation = { on: false, expiresIn: 43_200 };
  const faults = { retryAfter: null as string | null, tokenEndpoint429: false };

  const issue = (key: string) => {
    const access = `xoxp-${randomBytes(12).toString("hex")}`;
    tokens.set(access, { key, expiresAt: rotation.on ? Date.now() + rotation.expiresIn * 1000 : null, revoked: false });
    const out: Record<string, unknown> = { access_token: access, token_type: "user", scope: [...grants.get(key)!.scopes].join(",") };
    if (rotation.on) {
      const refresh = `xoxe-1-${randomBytes(12).toString("hex")}`;
      refreshTokens.set(refresh, key);
      Object.assign(out, { refresh_token: refresh, expires_in: rotation.expiresIn });
    }
    return out;
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://stub");
      const body = await readBody(req);
      const form = new URLSearchParams(req.headers["content-type"]?.includes("json") ? "" : body);
      const json = (status: number, data: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
        res.end(JSON.stringify(data));
      };
      const method = url.pathname.replace(/^\/api\//, "");
      calls.push(method);
      if (method === "oauth.v2.access") {
        if (faults.tokenEndpoint429) return json(429, { ok: false, error: "ratelimited" }, { "retry-after": "7" });
        const basic = Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString("base64");
        if (req.headers.authorization !== `Basic ${basic}`) return json(200, { ok: false, error: "invalid_client_id" });
        if (form.get("grant_type") === "refresh_token") {
          const key = refreshTokens.get(form.get("refresh_token") ?? "");
          if (!key) return json(200, { ok: false, error: "invalid_refresh_token" });
          refreshTokens.delete(form.get("refresh_token")!);
          const u = users.get(key)!;
          // A rotating user token's refresh answers at the top level.
          return json(200, { ok: true, app_id: "A1", ...issue(key), team: { id: u.team, name: u.teamName }, enterprise: null, is_enterprise_install: false });
        }
        const c = codes.get(form.get("code") ?? "");
        if (!c) return json(200, { ok: false, error: "invalid_code" });
        codes.delete(form.get("code")!);
        if (c.redirectUri !== form.get("redirect_uri")) return json(200, { ok: false, error: "bad_redirect_uri" });
        if (createHash("sha256").update(form.get("code_verifier") ?? "").digest("base64url") !== c.challenge) return json(200, { ok: false, error: "invalid_code_verifier" });
        const u = users.get(c.key)!;
        return json(200, { ok: true, app_id: "A1", authed_user: { id: u.user, ...issue(c.key) }, team: { id: u.team, name: u.teamName }, enterprise: null, is_enterprise_install: false });
      }
      if (faults.retryAfter) return json(429, { ok: false, error: "ratelimited" }, { "retry-after": faults.retryAfter });
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
      if (!bearer) return json(200, { ok: false, error: "not_authed" });
      const t = tokens.get(bearer);
      if (!t || t.revoked) return json(200, { ok: false, error: t ? "token_revoked" : "invalid_auth" });
      if (t.expiresAt !== null && t.expiresAt <= Date.now()) return json(200, { ok: false, error: "token_expired" });
      const u = users.get(t.key)!;
      const scopes = grants.get(t.key)!.scopes;
      const need = (scope: string) => (scopes.has(scope) ? null : { ok: false, error: "missing_scope", needed: scope, provided: [...scopes].join(",") });
      switch (method) {
        case "auth.test":
          return json(200, { ok: true, url: `https://${u.teamName.toLowerCase()}.slack.test/`, team: u.teamName, user: u.handle, team_id: u.team, user_id: u.user });
        case "users.info": {
          const missing = need("users:read");
          if (missing) return json(200, missing);
          const profile = scopes.has("users:read.email") ? { email: u.email } : {};
          return json(200, { ok: true, user: { id: url.searchParams.get("user"), name: u.handle, is_email_confirmed: true, profile } });
        }
        case "api.test": {
          // Slack echoes the arguments it read, from a form or a JSON body (and the query).
          const args = req.headers["content-type"]?.includes("json") ? (JSON.parse(body || "{}") as Record<string, unknown>) : Object.fromEntries(form);
          return json(200, { ok: true, args: { ...Object.fromEntries(url.searchParams), ...args }, content_type: req.headers["content-type"] ?? null });
        }
        case "auth.revoke":
          // Ends the person's authorization of the app at that workspace: every token of it.
          for (const other of tokens.values()) if (other.key === t.key) other.revoked = true;
          grants.delete(t.key);
          return json(200, { ok: true, revoked: true });
        case "conversations.list": {
          const missing = need("channels:read");
          return json(200, missing ?? { ok: true, channels: [{ id: "C1", name: "general" }], response_metadata: { next_cursor: "" } });
        }
        case "chat.postMessage": {
          const missing = need("chat:write");
          return json(200, missing ?? { ok: true, channel: "C1", ts: "1700000000.000100" });
        }
        default:
          return json(200, { ok: false, error: "unknown_method" });
      }
    })();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: base,
    env: {
      REALMGATE_DEVSLACK_CLIENT_ID: CLIENT_ID,
      REALMGATE_DEVSLACK_CLIENT_SECRET: CLIENT_SECRET,
      REALMGATE_DEVSLACK_AUTHORIZE_URL: `${base}/oauth/v2/authorize`,
      REALMGATE_DEVSLACK_TOKEN_URL: `${base}/api/oauth.v2.access`,
      REALMGATE_DEVSLACK_API_URL: `${base}/api`,
      REALMGATE_DEVSLACK_NAME: "Stub Slack",
    },
    calls,
    rotation,
    faults,
    granted: (team, user) => [...(grants.get(`${team}:${user}`)?.scopes ?? [])].sort(),
    approve(authorizationUrl, who, opts = {}) {
      const u = new URL(authorizationUrl);
      const redirect = new URL(u.searchParams.get("redirect_uri")!);
      redirect.searchParams.set("state", u.searchParams.get("state")!);
      if (opts.deny) {
        redirect.searchParams.set("error", "access_denied");
        return redirect.toString();
      }
      if (u.searchParams.get("client_id") !== CLIENT_ID || u.searchParams.get("code_challenge_method") !== "S256") throw new Error("bad authorization request");
      const key = `${who.team}:${who.user}`;
      users.set(key, who);
      // Slack's user scopes are cumulative: the new token holds every user scope granted so far.
      const g = grants.get(key) ?? { scopes: new Set<string>() };
      for (const s of (u.searchParams.get("user_scope") ?? "").split(",").filter(Boolean)) g.scopes.add(s);
      grants.set(key, g);
      const code = `code-${randomBytes(8).toString("hex")}`;
      codes.set(code, { key, redirectUri: u.searchParams.get("redirect_uri")!, challenge: u.searchParams.get("code_challenge")! });
      redirect.searchParams.set("code", code);
      return redirect.toString();
    },
    expireAll() {
      for (const t of tokens.values()) if (t.expiresAt !== null) t.expiresAt = 0;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
