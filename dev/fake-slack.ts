// Development fixture: a local server speaking the part of Slack's OAuth v2 and Web API the Slack provider
// and realm use, on Slack's own wire format: `/oauth/v2/authorize` (a small sign-in page where a person
// picks who they are and a workspace), `/api/oauth.v2.access` (user tokens under `authed_user`), and
// `/api/<method>` answering HTTP 200 `{ok:false, error}` for Slack's errors (`not_authed`, `invalid_auth`,
// `token_revoked`, `account_inactive`, `missing_scope` with `needed`/`provided`, …), cursors in
// `response_metadata.next_cursor`, and HTTP 429 with `Retry-After` in the `ratelimited` mode. Files are
// served at their `url_private` on this server, behind the user's bearer token; uploads follow Slack's
// external flow (`files.getUploadURLExternal`, POST the bytes to `upload_url`, `files.completeUploadExternal`).
// Search runs Slack's query language (dev/slack-query.ts). Nothing under lib/ knows this exists: the app
// sees one more provider configured from the environment (REALMGATE_DEVSLACK_*).
import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { solidPng } from "./png";
import { slackQuery, type SearchableSlackMessage } from "./slack-query";

// --- the seed ------------------------------------------------------------------------------------

/** Fixed ids of the seeded workspaces, so tests elsewhere can name them. */
export const SLACK_SEED = {
  teams: {
    acme: { id: "T0ACME0001", name: "Acme", domain: "acme" },
    beta: { id: "T0BETA0001", name: "Beta Labs", domain: "beta-labs" },
  },
  /** Slack user ids are per workspace: alice has one in each. */
  users: {
    alice: { id: "U0ALICE001", team: "T0ACME0001", email: "alice@acme.test", name: "alice", realName: "Alice Owner" },
    bob: { id: "U0BOB00001", team: "T0ACME0001", email: "bob@acme.test", name: "bob", realName: "Bob Member" },
    sam: { id: "U0SAM00001", team: "T0ACME0001", email: "sam@acme.test", name: "sam", realName: "Sam Support" },
    aliceBeta: { id: "U0ALICE002", team: "T0BETA0001", email: "alice@acme.test", name: "alice", realName: "Alice Owner" },
  },
  channels: {
    general: { id: "C0GENERAL1", team: "T0ACME0001", name: "general" },
    launch: { id: "C0LAUNCH01", team: "T0ACME0001", name: "launch" },
    /** Private: alice and bob only (needs groups:read / groups:history). */
    design: { id: "G0DESIGN01", team: "T0ACME0001", name: "design" },
    /** Archived. */
    oldLaunch: { id: "C0OLDLNCH1", team: "T0ACME0001", name: "old-launch" },
    betaGeneral: { id: "C0BGENERL1", team: "T0BETA0001", name: "general" },
  },
  /** bob's message in #launch carrying the three mockups. */
  launchMessage: { channel: "C0LAUNCH01", ts: "1795512600.000100", text: "Макеты готовы — the mockups are ready" },
  /** alice's reply in its thread. */
  launchReply: { channel: "C0LAUNCH01", ts: "1795513320.000200", thread_ts: "1795512600.000100" },
  files: [
    { id: "F0MOCKUP01", name: "mockup-home.png", rgb: [0xe0, 0x4f, 0x5f] as const },
    { id: "F0MOCKUP02", name: "mockup-search.png", rgb: [0x2e, 0xb6, 0x7d] as const },
    { id: "F0MOCKUP03", name: "mockup-settings.png", rgb: [0x36, 0xc5, 0xf0] as const },
  ],
  /** Messages in #general (more than one page at a small `limit`). */
  generalMessageCount: 14,
} as const;

/** The user scopes this server knows (others are refused at authorization with `invalid_scope`). */
export const SLACK_USER_SCOPES = [
  "channels:read", "channels:history", "groups:read", "groups:history", "im:read", "im:history", "mpim:read", "mpim:history",
  "search:read", "users:read", "users:read.email", "files:read", "files:write", "chat:write", "reactions:read", "reactions:write",
  "identity.basic", "identity.email", "team:read", "users.profile:read", "pins:read", "links:read", "emoji:read",
] as const;

type Team = { id: string; name: string; domain: string };
type User = { id: string; team: string; name: string; realName: string; email: string; deleted: boolean; isAdmin: boolean; tz: string };
type Channel = { id: string; team: string; name: string; isPrivate: boolean; isArchived: boolean; isGeneral: boolean; created: number; creator: string; members: Set<string>; topic: string; purpose: string };
type Reaction = { name: string; users: string[] };
type Message = { channel: string; ts: string; user: string; text: string; threadTs: string | null; files: string[]; reactions: Reaction[]; pinned: boolean };
type SlackFile = { id: string; team: string; user: string; name: string; title: string; mimetype: string; filetype: string; created: number; bytes: Buffer; width?: number; height?: number; channels: string[]; shares: { channel: string; ts: string }[] };

/** `via`: the OAuth flow (one cumulative token per user and workspace) or `issueToken` (tests). */
export type SlackToken = { token: string; user: string; team: string; scopes: string[]; revoked: boolean; issuedAt: number; via: "oauth" | "test" };
export type SlackUpload = { fileId: string; uploadUrl: string; user: string; team: string; filename: string; length: number; bytes: Buffer | null; completed: boolean; title: string | null; channel: string | null; threadTs: string | null; expiresAt: number };
export type SlackPosted = { channel: string; ts: string; user: string; team: string; text: string; threadTs: string | null; files: string[] };
export type SlackRequest = { at: number; httpMethod: string; path: string; method: string | null; user: string | null; team: string | null; status: number; error: string | null };
export type SlackMode = "normal" | "ratelimited";

export type DevSlackState = {
  readonly mode: SlackMode;
  /** Seconds sent in `Retry-After` in the `ratelimited` mode. */
  retryAfter: number;
  /** Every token issued (live and revoked), newest last. */
  tokens: SlackToken[];
  /** The live token a user (Slack id, or handle with `team`) got through the OAuth flow in a workspace, if any. */
  tokenFor: (user: string, team?: string) => SlackToken | null;
  /** Mint a fresh token with exactly these scopes, without the browser (tests; the OAuth path keeps one cumulative token per user and workspace). */
  issueToken: (opts: { user: string; team?: string; scopes: string[] }) => string;
  /** Replace a live token's scopes (tests: a grant that lost a scope answers `missing_scope`). */
  setScopes: (token: string, scopes: string[]) => void;
  /** Tokens revoked (by auth.revoke), in order. */
  revoked: string[];
  /** Messages posted through the API (chat.postMessage, files.completeUploadExternal with a channel). */
  posted: SlackPosted[];
  /** Reactions added through the API. */
  reactions: { channel: string; ts: string; name: string; user: string }[];
  uploads: SlackUpload[];
  /** Every request: Web API calls with their method name and the error they answered. */
  requests: SlackRequest[];
  /** Deactivate a user (Slack id): their tokens then answer `account_inactive`. */
  deactivate: (userId: string) => void;
  reactivate: (userId: string) => void;
  /** The messages of a channel, oldest first, replies included (a copy). */
  messages: (channelId: string) => { ts: string; user: string; text: string; thread_ts: string | null; files: string[]; reactions: { name: string; users: string[] }[] }[];
  /** The bytes of a file (seeded or uploaded). */
  fileBytes: (fileId: string) => Buffer | null;
};

export type DevSlack = {
  url: string;
  env: Record<string, string>;
  state: DevSlackState;
  /**
   * `ratelimited`: Web API calls answer HTTP 429 with `Retry-After` (all but oauth.v2.access, or only
   * `methods` when given); `normal` serves them again.
   */
  setMode: (mode: SlackMode, opts?: { retryAfter?: number; methods?: string[] }) => void;
  close: () => Promise<void>;
};

export const DEVSLACK_CLIENT_ID = "1000000000001.2000000000002";
export const DEVSLACK_APP_ID = "A0REALMGATE";
/** Where Realmgate receives OAuth callbacks (the app's route; registered here as the exact redirect URI). */
export const CONNECTIONS_CALLBACK_PATH = "/api/v1/connections/callback";
const CODE_TTL_MS = 10 * 60_000;
const UPLOAD_TTL_MS = 10 * 60_000;

const ts = (iso: string, seq: number) => `${Date.parse(iso) / 1000}.${String(seq).padStart(6, "0")}`;
const tsSeconds = (t: string) => Number(t.split(".")[0]);

function seed() {
  const S = SLACK_SEED;
  const teams = new Map<string, Team>(Object.values(S.teams).map((t) => [t.id, { ...t }]));
  const users = new Map<string, User>(
    Object.values(S.users).map((u) => [u.id, { id: u.id, team: u.team, name: u.name, realName: u.realName, email: u.email, deleted: false, isAdmin: u.name === "alice", tz: "Europe/Lisbon" }]),
  );
  const acmeAll: string[] = [S.users.alice.id, S.users.bob.id, S.users.sam.id];
  const created = Date.parse("2026-01-05T09:00:00Z") / 1000;
  const channel = (c: { id: string; team: string; name: string }, extra: Partial<Omit<Channel, "members">> & { members: string[] }): Channel => ({
    id: c.id, team: c.team, name: c.name, isPrivate: false, isArchived: false, isGeneral: false, created, creator: S.users.alice.id, topic: "", purpose: "", ...extra, members: new Set(extra.members),
  });
  const channels = new Map<string, Channel>(
    [
      channel(S.channels.general, { members: acmeAll, isGeneral: true, topic: "Company-wide announcements", purpose: "This channel is for workspace-wide communication." }),
      channel(S.channels.launch, { members: acmeAll, topic: "Launch on December 1st", purpose: "Everything about the winter launch." }),
      channel(S.channels.design, { members: [S.users.alice.id, S.users.bob.id], isPrivate: true, purpose: "Design reviews." }),
      channel(S.channels.oldLaunch, { members: acmeAll, isArchived: true, purpose: "The spring launch (archived)." }),
      channel(S.channels.betaGeneral, { members: [S.users.aliceBeta.id], isGeneral: true, creator: S.users.aliceBeta.id, purpose: "Beta Labs, all hands." }),
    ].map((c) => [c.id, c]),
  );
  const files = new Map<string, SlackFile>();
  const messages: Message[] = [];
  const add = (m: Omit<Message, "reactions" | "pinned" | "files" | "threadTs"> & Partial<Message>) => messages.push({ threadTs: null, files: [], reactions: [], pinned: false, ...m });

  const g = S.channels.general.id;
  const general = [
    [S.users.alice.id, "Welcome to Acme's Slack! Say hi 👋"],
    [S.users.bob.id, "Hi all — Bob here, working on the website."],
    [S.users.sam.id, "Support rota for next week is up: https://acme.test/rota"],
    [S.users.alice.id, "Reminder: all-hands on Thursday at 15:00."],
    [S.users.bob.id, "Coffee machine on floor 2 is fixed ☕"],
    [S.users.sam.id, "Привет всем! Sam from support."],
    [S.users.alice.id, "Q4 planning doc: https://acme.test/q4-planning"],
    [S.users.bob.id, "Who has the projector remote?"],
    [S.users.sam.id, "Found it, it was in the kitchen."],
    [S.users.alice.id, "Offsite in Lisbon confirmed for March."],
    [S.users.bob.id, "Lunch order closes at 11:30 today."],
    [S.users.sam.id, "The status page moved to https://status.acme.test"],
    [S.users.alice.id, "Please review the holiday calendar by Friday."],
    [S.users.bob.id, "Deploy window tonight, 20:00–21:00 UTC."],
  ] as const;
  general.forEach(([user, text], i) => add({ channel: g, ts: ts(`2026-11-${String(10 + i).padStart(2, "0")}T09:00:00Z`, 100), user, text }));
  messages.find((m) => m.text.startsWith("Reminder: all-hands"))!.reactions.push({ name: "thumbsup", users: [S.users.bob.id, S.users.sam.id] });
  messages.find((m) => m.text.startsWith("Offsite in Lisbon"))!.pinned = true;

  const l = S.channels.launch.id;
  add({ channel: l, ts: ts("2026-11-23T16:00:00Z", 100), user: S.users.alice.id, text: "Launch checklist: landing page, pricing, press kit. Mockups due tomorrow." });
  const shareTs = S.launchMessage.ts;
  for (const f of S.files) {
    const bytes = solidPng(64, 64, f.rgb);
    files.set(f.id, { id: f.id, team: S.teams.acme.id, user: S.users.bob.id, name: f.name, title: f.name.replace(/\.png$/, ""), mimetype: "image/png", filetype: "png", created: tsSeconds(shareTs) - 60, bytes, width: 64, height: 64, channels: [l], shares: [{ channel: l, ts: shareTs }] });
  }
  add({ channel: l, ts: shareTs, user: S.users.bob.id, text: S.launchMessage.text, files: S.files.map((f) => f.id), reactions: [{ name: "tada", users: [S.users.alice.id] }] });
  add({ channel: l, ts: S.launchReply.ts, user: S.users.alice.id, text: "Отлично, спасибо! Looks great — shipping these.", threadTs: shareTs });
  add({ channel: l, ts: ts("2026-11-24T11:00:00Z", 100), user: S.users.sam.id, text: "Press kit draft is here: https://acme.test/press-kit" });

  add({ channel: S.channels.design.id, ts: ts("2026-11-20T14:00:00Z", 100), user: S.users.bob.id, text: "Design review of the new onboarding flow on Monday." });
  add({ channel: S.channels.oldLaunch.id, ts: ts("2026-04-02T10:00:00Z", 100), user: S.users.alice.id, text: "Spring launch is done, archiving this channel." });
  add({ channel: S.channels.betaGeneral.id, ts: ts("2026-11-18T08:00:00Z", 100), user: S.users.aliceBeta.id, text: "Welcome to Beta Labs — experiments start Monday." });
  add({ channel: S.channels.betaGeneral.id, ts: ts("2026-11-19T08:00:00Z", 100), user: S.users.aliceBeta.id, text: "Lab notebook template: https://beta-labs.test/notebook" });
  return { teams, users, channels, files, messages };
}

// --- HTTP helpers --------------------------------------------------------------------------------

class HttpFail extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A Slack error: HTTP 200 with `{ok:false, error, …extra}`. */
class SlackError extends Error {
  constructor(
    readonly error: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(error);
  }
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  if (res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

function html(res: ServerResponse, status: number, title: string, body: string) {
  if (res.destroyed) return;
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title><style>
body{font-family:system-ui,sans-serif;max-width:34rem;margin:2rem auto;padding:0 1rem;color:#1d1c1d;line-height:1.5}
fieldset{border:1px solid #ccc;border-radius:6px;margin:0 0 1rem;padding:.75rem 1rem}legend{font-weight:600;padding:0 .25rem}
label{display:block;padding:.25rem 0}button{font:inherit;padding:.5rem 1.25rem;border-radius:6px;border:1px solid #555;margin-right:.5rem;cursor:pointer}
button.primary{background:#007a5a;color:#fff;border-color:#007a5a}button:focus-visible,input:focus-visible{outline:3px solid #1264a3;outline-offset:2px}
.alert{border:1px solid #b00020;background:#fdecee;color:#7a0014;padding:.5rem .75rem;border-radius:6px}code{background:#f4f4f4;padding:0 .25rem}
</style></head><body><main>${body}</main></body></html>`;
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", "content-length": Buffer.byteLength(page) });
  res.end(page);
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

async function readRaw(req: IncomingMessage, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > max) throw new HttpFail(413, "Request too large.");
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Arguments from the query string and a form or JSON body, as Slack reads them. */
type Args = { get: (name: string) => unknown; json: boolean };

function parseArgs(url: URL, req: IncomingMessage, raw: Buffer): Args {
  const values = new Map<string, unknown>();
  for (const [k, v] of url.searchParams) values.set(k, v);
  const type = (req.headers["content-type"] ?? "").toLowerCase();
  let isJson = false;
  if (raw.length) {
    if (type.startsWith("application/json")) {
      isJson = true;
      let v: unknown;
      try {
        v = JSON.parse(raw.toString("utf8"));
      } catch {
        throw new SlackError("invalid_json");
      }
      if (!v || typeof v !== "object" || Array.isArray(v)) throw new SlackError("json_not_object");
      for (const [k, x] of Object.entries(v)) values.set(k, x);
    } else for (const [k, v] of new URLSearchParams(raw.toString("utf8"))) values.set(k, v);
  }
  return { get: (name) => values.get(name), json: isJson };
}

const cursorOf = (offset: number) => Buffer.from(`next:${offset}`).toString("base64");
function offsetOf(cursor: string | undefined): number {
  if (!cursor) return 0;
  const m = /^next:(\d+)$/.exec(Buffer.from(cursor, "base64").toString("utf8"));
  if (!m) throw new SlackError("invalid_cursor");
  return Number(m[1]);
}

const tsCursor = (t: string) => Buffer.from(`next_ts:${t}`).toString("base64");
function tsOfCursor(cursor: string): string {
  const m = /^next_ts:(\d+\.\d+)$/.exec(Buffer.from(cursor, "base64").toString("utf8"));
  if (!m) throw new SlackError("invalid_cursor");
  return m[1]!;
}

const cmpTs = (a: string, b: string) => {
  const [as, af = "0"] = a.split(".");
  const [bs, bf = "0"] = b.split(".");
  return Number(as) - Number(bs) || Number(af.padEnd(6, "0")) - Number(bf.padEnd(6, "0"));
};

/** The parts of a multipart/form-data body (enough for a file upload). */
function multipart(raw: Buffer, contentType: string): { name: string; filename: string | null; data: Buffer }[] {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!boundary) throw new HttpFail(400, "multipart body without a boundary");
  const delim = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const parts: { name: string; filename: string | null; data: Buffer }[] = [];
  let pos = raw.indexOf(delim);
  while (pos >= 0) {
    const start = pos + delim.length;
    if (raw.subarray(start, start + 2).toString() === "--") break;
    const next = raw.indexOf(delim, start);
    if (next < 0) break;
    const part = raw.subarray(start + 2, next - 2); // skip CRLF after the delimiter and before the next
    const split = part.indexOf("\r\n\r\n");
    if (split >= 0) {
      const head = part.subarray(0, split).toString("utf8");
      const name = /name="([^"]*)"/i.exec(head)?.[1] ?? "";
      const filename = /filename="([^"]*)"/i.exec(head)?.[1] ?? null;
      parts.push({ name, filename, data: part.subarray(split + 4) });
    }
    pos = next;
  }
  return parts;
}

// --- the server ----------------------------------------------------------------------------------

/**
 * The local Slack for `npm run dev` and the tests: OAuth v2 (user tokens) and the Web API on one server.
 * `env` is what the app needs to use it.
 */
export async function startDevSlack(opts: { appUrl: string; port?: number; host?: string; clientSecret?: string; name?: string }): Promise<DevSlack> {
  const appUrl = opts.appUrl.replace(/\/+$/, "");
  const redirectUri = `${appUrl}${CONNECTIONS_CALLBACK_PATH}`;
  const clientSecret = opts.clientSecret ?? randomBytes(16).toString("hex");
  const host = opts.host ?? "127.0.0.1";
  const { teams, users, channels, files, messages } = seed();
  const codes = new Map<string, { user: string; team: string; scopes: string[]; redirectUri: string | null; expiresAt: number; challenge: { value: string; method: "S256" | "plain" } | null }>();
  const tokens = new Map<string, SlackToken>();
  const uploads = new Map<string, SlackUpload>();
  let mode: SlackMode = "normal";
  let limitedMethods: string[] | null = null;
  let lastTs = 0;
  let base = "";

  const state: DevSlackState = {
    get mode() {
      return mode;
    },
    retryAfter: 30,
    tokens: [],
    tokenFor: (user, team) => {
      const u = resolveUser(user, team);
      return u ? ([...tokens.values()].reverse().find((t) => t.user === u.id && t.team === u.team && !t.revoked && t.via === "oauth") ?? null) : null;
    },
    issueToken: ({ user, team, scopes }) => {
      const u = resolveUser(user, team);
      if (!u) throw new Error(`no user ${user} in ${team ?? "any workspace"}`);
      return grant(u, scopes, true).token;
    },
    setScopes: (token, scopes) => {
      const t = tokens.get(token);
      if (!t) throw new Error("no such token");
      t.scopes = [...new Set(scopes)];
    },
    revoked: [],
    posted: [],
    reactions: [],
    uploads: [],
    requests: [],
    deactivate: (id) => {
      const u = users.get(id);
      if (!u) throw new Error(`no user ${id}`);
      u.deleted = true;
    },
    reactivate: (id) => {
      const u = users.get(id);
      if (!u) throw new Error(`no user ${id}`);
      u.deleted = false;
    },
    messages: (channelId) =>
      messages
        .filter((m) => m.channel === channelId)
        .sort((a, b) => cmpTs(a.ts, b.ts))
        .map((m) => ({ ts: m.ts, user: m.user, text: m.text, thread_ts: m.threadTs, files: [...m.files], reactions: m.reactions.map((r) => ({ name: r.name, users: [...r.users] })) })),
    fileBytes: (id) => files.get(id)?.bytes ?? null,
  };

  function resolveUser(user: string, team?: string): User | null {
    const byId = users.get(user);
    if (byId && (!team || byId.team === team)) return byId;
    const teamId = team ? ([...teams.values()].find((t) => t.id === team || t.name.toLowerCase() === team.toLowerCase())?.id ?? team) : undefined;
    return [...users.values()].find((u) => u.name === user.toLowerCase() && (!teamId || u.team === teamId)) ?? null;
  }

  /** One token per (user, workspace): a new authorization adds its scopes to the live token, as Slack's are cumulative. */
  function grant(u: User, scopes: string[], fresh = false): SlackToken {
    const live = fresh ? undefined : [...tokens.values()].reverse().find((t) => t.user === u.id && t.team === u.team && !t.revoked && t.via === "oauth");
    if (live) {
      for (const s of scopes) if (!live.scopes.includes(s)) live.scopes.push(s);
      return live;
    }
    const digits = () => String(1000000000000 + Math.floor(Math.random() * 8999999999999));
    const t: SlackToken = { token: `xoxp-${digits()}-${digits()}-${digits()}-${randomBytes(16).toString("hex")}`, user: u.id, team: u.team, scopes: [...new Set(scopes)], revoked: false, issuedAt: Date.now(), via: fresh ? "test" : "oauth" };
    tokens.set(t.token, t);
    state.tokens.push(t);
    return t;
  }

  function newTs(): string {
    const now = Date.now() * 1000;
    lastTs = Math.max(now, lastTs + 1);
    return `${Math.floor(lastTs / 1_000_000)}.${String(lastTs % 1_000_000).padStart(6, "0")}`;
  }

  // --- objects as Slack shows them ---

  const teamUrl = (t: Team) => `${base}/${t.domain}/`;
  const permalink = (m: { channel: string; ts: string; threadTs?: string | null }) => {
    const c = channels.get(m.channel)!;
    const p = `${teamUrl(teams.get(c.team)!)}archives/${c.id}/p${m.ts.replace(".", "")}`;
    return m.threadTs && m.threadTs !== m.ts ? `${p}?thread_ts=${m.threadTs}&cid=${c.id}` : p;
  };

  function userObject(u: User, withEmail: boolean) {
    const [first, ...rest] = u.realName.split(" ");
    return {
      id: u.id,
      team_id: u.team,
      name: u.name,
      deleted: u.deleted,
      color: "9f69e7",
      real_name: u.realName,
      tz: u.tz,
      tz_label: "Western European Standard Time",
      tz_offset: 0,
      profile: {
        title: "",
        phone: "",
        skype: "",
        real_name: u.realName,
        real_name_normalized: u.realName,
        display_name: u.name,
        display_name_normalized: u.name,
        first_name: first,
        last_name: rest.join(" "),
        ...(withEmail ? { email: u.email } : {}),
        status_text: "",
        status_emoji: "",
        avatar_hash: u.id.slice(-6).toLowerCase(),
        team: u.team,
      },
      is_admin: u.isAdmin,
      is_owner: u.isAdmin,
      is_primary_owner: u.isAdmin,
      is_restricted: false,
      is_ultra_restricted: false,
      is_bot: false,
      is_app_user: false,
      updated: 1767603600,
      is_email_confirmed: true,
      who_can_share_contact_card: "EVERYONE",
    };
  }

  function channelObject(c: Channel, viewer: User, withCount = true) {
    return {
      id: c.id,
      name: c.name,
      is_channel: !c.isPrivate,
      is_group: c.isPrivate,
      is_im: false,
      is_mpim: false,
      is_private: c.isPrivate,
      created: c.created,
      is_archived: c.isArchived,
      is_general: c.isGeneral,
      unlinked: 0,
      name_normalized: c.name,
      is_shared: false,
      is_org_shared: false,
      is_pending_ext_shared: false,
      pending_shared: [],
      context_team_id: c.team,
      updated: c.created * 1000,
      parent_conversation: null,
      creator: c.creator,
      is_ext_shared: false,
      shared_team_ids: [c.team],
      pending_connected_team_ids: [],
      is_member: c.members.has(viewer.id),
      topic: { value: c.topic, creator: c.topic ? c.creator : "", last_set: c.topic ? c.created : 0 },
      purpose: { value: c.purpose, creator: c.purpose ? c.creator : "", last_set: c.purpose ? c.created : 0 },
      previous_names: [],
      ...(withCount ? { num_members: c.members.size } : {}),
    };
  }

  function fileObject(f: SlackFile) {
    const path = `${base}/files-pri/${f.team}-${f.id}`;
    const shares: Record<string, Record<string, { ts: string; channel_name: string; team_id: string; share_user_id: string; source: string }[]>> = {};
    for (const s of f.shares) {
      const c = channels.get(s.channel)!;
      const kind = c.isPrivate ? "private" : "public";
      ((shares[kind] ??= {})[c.id] ??= []).push({ ts: s.ts, channel_name: c.name, team_id: c.team, share_user_id: f.user, source: "UNKNOWN" });
    }
    return {
      id: f.id,
      created: f.created,
      timestamp: f.created,
      name: f.name,
      title: f.title,
      mimetype: f.mimetype,
      filetype: f.filetype,
      pretty_type: f.filetype.toUpperCase(),
      user: f.user,
      user_team: f.team,
      editable: false,
      size: f.bytes.length,
      mode: "hosted",
      is_external: false,
      external_type: "",
      is_public: f.shares.some((s) => !channels.get(s.channel)!.isPrivate),
      public_url_shared: false,
      display_as_bot: false,
      username: "",
      url_private: `${path}/${encodeURIComponent(f.name)}`,
      url_private_download: `${path}/download/${encodeURIComponent(f.name)}`,
      ...(f.width ? { original_w: f.width, original_h: f.height } : {}),
      permalink: `${teamUrl(teams.get(f.team)!)}files/${f.user}/${f.id}/${encodeURIComponent(f.name)}`,
      channels: f.shares.filter((s) => !channels.get(s.channel)!.isPrivate).map((s) => s.channel),
      groups: f.shares.filter((s) => channels.get(s.channel)!.isPrivate).map((s) => s.channel),
      ims: [],
      shares,
      comments_count: 0,
      has_rich_preview: false,
      file_access: "visible",
    };
  }

  function messageObject(m: Message) {
    const replies = m.threadTs === null ? messages.filter((r) => r.channel === m.channel && r.threadTs === m.ts && r.ts !== m.ts).sort((a, b) => cmpTs(a.ts, b.ts)) : [];
    const team = channels.get(m.channel)!.team;
    return {
      type: "message",
      user: m.user,
      text: m.text,
      ts: m.ts,
      team,
      ...(m.files.length ? { files: m.files.map((id) => fileObject(files.get(id)!)), upload: false, display_as_bot: false } : {}),
      ...(replies.length
        ? { thread_ts: m.ts, reply_count: replies.length, reply_users_count: new Set(replies.map((r) => r.user)).size, latest_reply: replies.at(-1)!.ts, reply_users: [...new Set(replies.map((r) => r.user))], is_locked: false, subscribed: false }
        : {}),
      ...(m.threadTs && m.threadTs !== m.ts ? { thread_ts: m.threadTs, parent_user_id: messages.find((p) => p.channel === m.channel && p.ts === m.threadTs)?.user } : {}),
      ...(m.reactions.length ? { reactions: m.reactions.map((r) => ({ name: r.name, users: [...r.users], count: r.users.length })) } : {}),
      ...(m.pinned ? { pinned_to: [m.channel] } : {}),
    };
  }

  // --- the OAuth v2 pages ---

  function authorizeErrors(p: URLSearchParams): string | null {
    if (p.get("client_id") !== DEVSLACK_CLIENT_ID) return "invalid_client_id";
    const ru = p.get("redirect_uri");
    if (ru !== null && ru !== redirectUri) return "bad_redirect_uri";
    if ((p.get("scope") ?? "").trim()) return "invalid_scope"; // this server grants user tokens only
    const scopes = (p.get("user_scope") ?? "").split(/[,\s]+/).filter(Boolean);
    if (!scopes.length || scopes.some((s) => !(SLACK_USER_SCOPES as readonly string[]).includes(s))) return "invalid_scope";
    const team = p.get("team");
    if (team && !teams.has(team)) return "invalid_team";
    const method = p.get("code_challenge_method");
    if (method !== null && method !== "S256" && method !== "plain") return "invalid_code_challenge_method";
    if (method !== null && !p.get("code_challenge")) return "invalid_code_challenge";
    return null;
  }

  function authorizePage(res: ServerResponse, p: URLSearchParams, error: string | null, chosen: { login?: string; team?: string } = {}) {
    const scopes = (p.get("user_scope") ?? "").split(/[,\s]+/).filter(Boolean);
    const onlyTeam = p.get("team");
    const people = [
      ["alice", "Alice Owner", "alice@acme.test"],
      ["bob", "Bob Member", "bob@acme.test"],
      ["sam", "Sam Support", "sam@acme.test"],
    ];
    const workspaces = [...teams.values()].filter((t) => !onlyTeam || t.id === onlyTeam);
    const hidden = ["client_id", "user_scope", "redirect_uri", "state", "team", "code_challenge", "code_challenge_method"].map((k) => (p.get(k) !== null ? `<input type="hidden" name="${k}" value="${esc(p.get(k)!)}">` : "")).join("");
    const login = chosen.login ?? "alice";
    const team = chosen.team ?? workspaces[0]!.id;
    html(
      res,
      error ? 400 : 200,
      "Sign in to Local Slack",
      `<h1>Local Slack</h1><p><strong>Realmgate</strong> asks to act as you in a workspace.</p>
${error ? `<p class="alert" role="alert">${esc(error)}</p>` : ""}
<form method="post" action="/oauth/v2/authorize">${hidden}
<fieldset><legend>Who are you?</legend>${people.map(([id, name, email]) => `<label><input type="radio" name="login" value="${id}"${id === login ? " checked" : ""}> ${esc(name!)} (${esc(email!)})</label>`).join("")}</fieldset>
<fieldset><legend>Workspace</legend>${workspaces.map((t) => `<label><input type="radio" name="workspace" value="${t.id}"${t.id === team ? " checked" : ""}> ${esc(t.name)}</label>`).join("")}</fieldset>
<h2>It will be able to</h2><ul>${scopes.map((s) => `<li><code>${esc(s)}</code></li>`).join("")}</ul>
<button type="submit" class="primary" name="decision" value="allow">Allow</button><button type="submit" name="decision" value="deny">Cancel</button>
</form>`,
    );
  }

  async function handleOauth(req: IncomingMessage, res: ServerResponse, url: URL) {
    if (req.method === "GET") {
      const error = authorizeErrors(url.searchParams);
      if (error) return html(res, 400, "Local Slack: cannot authorize", `<h1>Local Slack</h1><p class="alert" role="alert">This authorization request is invalid: <code>${esc(error)}</code>.</p>`);
      return authorizePage(res, url.searchParams, null);
    }
    if (req.method !== "POST") throw new HttpFail(405, "Method not allowed.");
    const form = new URLSearchParams((await readRaw(req, 64 * 1024)).toString("utf8"));
    const error = authorizeErrors(form);
    if (error) return html(res, 400, "Local Slack: cannot authorize", `<h1>Local Slack</h1><p class="alert" role="alert">This authorization request is invalid: <code>${esc(error)}</code>.</p>`);
    const back = new URL(redirectUri);
    const st = form.get("state");
    if (form.get("decision") === "deny") {
      back.searchParams.set("error", "access_denied");
      if (st !== null) back.searchParams.set("state", st);
      res.writeHead(302, { location: back.toString() }).end();
      return;
    }
    const login = form.get("login") ?? "";
    const teamId = form.get("workspace") ?? form.get("team") ?? "";
    const team = teams.get(teamId);
    if (!team) return authorizePage(res, form, "Choose a workspace.", { login });
    if (form.get("team") && form.get("team") !== teamId) return authorizePage(res, form, `This request is for another workspace.`, { login });
    const u = [...users.values()].find((x) => x.name === login && x.team === team.id);
    const known = ["alice", "bob", "sam"].includes(login);
    const person = [...users.values()].find((x) => x.name === login)?.realName ?? login;
    if (!u) return authorizePage(res, form, known ? `${person} is not a member of ${team.name}: choose another workspace or person.` : "Choose who you are.", { login, team: team.id });
    if (u.deleted) return authorizePage(res, form, `${u.realName}'s account in ${team.name} is deactivated.`, { login, team: team.id });
    const code = `${Date.now()}.${randomBytes(20).toString("hex")}`;
    codes.set(code, { user: u.id, team: team.id, scopes: (form.get("user_scope") ?? "").split(/[,\s]+/).filter(Boolean), redirectUri: form.get("redirect_uri"),
      expiresAt: Date.now() + CODE_TTL_MS,
      challenge: form.get("code_challenge") ? { value: form.get("code_challenge")!, method: form.get("code_challenge_method") === "S256" ? "S256" : "plain" } : null,
    });
    back.searchParams.set("code", code);
    if (st !== null) back.searchParams.set("state", st);
    res.writeHead(302, { location: back.toString() }).end();
  }

  function oauthAccess(req: IncomingMessage, args: Args) {
    let clientId = typeof args.get("client_id") === "string" ? (args.get("client_id") as string) : null;
    let secret = typeof args.get("client_secret") === "string" ? (args.get("client_secret") as string) : null;
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? "");
    if (basic) {
      const decoded = Buffer.from(basic[1]!, "base64").toString("utf8");
      const i = decoded.indexOf(":");
      if (i >= 0) {
        clientId = decodeURIComponent(decoded.slice(0, i));
        secret = decodeURIComponent(decoded.slice(i + 1));
      }
    }
    const grantType = args.get("grant_type");
    if (grantType === "refresh_token") throw new SlackError("invalid_refresh_token");
    if (grantType !== undefined && grantType !== "authorization_code") throw new SlackError("invalid_grant_type");
    if (clientId !== DEVSLACK_CLIENT_ID) throw new SlackError("invalid_client_id");
    if (secret !== clientSecret) throw new SlackError("bad_client_secret");
    const code = typeof args.get("code") === "string" ? (args.get("code") as string) : "";
    const c = codes.get(code);
    if (!c || c.expiresAt < Date.now()) {
      codes.delete(code);
      throw new SlackError("invalid_code");
    }
    const ru = args.get("redirect_uri");
    if (c.redirectUri !== null && ru !== c.redirectUri) throw new SlackError("bad_redirect_uri");
    if (c.challenge) {
      // PKCE (RFC 7636): the verifier must hash to the challenge the authorization carried.
      const verifier = typeof args.get("code_verifier") === "string" ? (args.get("code_verifier") as string) : "";
      const expected = Buffer.from(c.challenge.value);
      const got = Buffer.from(c.challenge.method === "S256" ? createHash("sha256").update(verifier).digest("base64url") : verifier);
      if (!verifier || got.length !== expected.length || !timingSafeEqual(got, expected)) throw new SlackError("invalid_code_verifier");
    }
    codes.delete(code); // single use
    const u = users.get(c.user)!;
    const t = grant(u, c.scopes);
    const team = teams.get(c.team)!;
    return { ok: true, app_id: DEVSLACK_APP_ID, authed_user: { id: u.id, scope: t.scopes.join(","), access_token: t.token, token_type: "user" }, team: { id: team.id, name: team.name }, enterprise: null, is_enterprise_install: false };
  }

  // --- the Web API ---

  type Ctx = { token: SlackToken; user: User; team: Team; args: Args };

  const str = (a: Args, name: string): string | undefined => {
    const v = a.get(name);
    if (v === undefined || v === null || v === "") return undefined;
    return typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : undefined;
  };
  const bool = (a: Args, name: string) => ["1", "true"].includes((str(a, name) ?? "").toLowerCase());
  const int = (a: Args, name: string, dflt: number, min: number, max: number) => {
    const s = str(a, name);
    if (s === undefined) return dflt;
    const n = Number(s);
    if (!Number.isFinite(n)) throw new SlackError("invalid_arguments", { response_metadata: { messages: [`[ERROR] invalid value for field: ${name}`] } });
    return Math.min(Math.max(Math.trunc(n), min), max);
  };
  const required = (a: Args, name: string) => {
    const v = str(a, name);
    if (v === undefined) throw new SlackError("invalid_arguments", { response_metadata: { messages: [`[ERROR] missing required field: ${name}`] } });
    return v;
  };

  /** Refuse unless the token has one of `any` (Slack names all of them in `needed`). */
  const need = (ctx: Ctx, any: string[]) => {
    if (!any.some((s) => ctx.token.scopes.includes(s))) throw new SlackError("missing_scope", { needed: any.join(","), provided: ctx.token.scopes.join(",") });
  };
  const canSee = (ctx: Ctx, c: Channel) => c.team === ctx.team.id && (!c.isPrivate || c.members.has(ctx.user.id));
  const channelArg = (ctx: Ctx, name = "channel", byName = false): Channel => {
    const v = required(ctx.args, name);
    let c = channels.get(v);
    if (!c && byName) c = [...channels.values()].find((x) => x.team === ctx.team.id && x.name === v.replace(/^#/, ""));
    if (!c || !canSee(ctx, c)) throw new SlackError("channel_not_found");
    return c;
  };
  const readScope = (c: Channel) => (c.isPrivate ? "groups:read" : "channels:read");
  const historyScope = (c: Channel) => (c.isPrivate ? "groups:history" : "channels:history");
  const HISTORY_ANY = ["channels:history", "groups:history", "mpim:history", "im:history"];
  const topLevel = (c: Channel) => messages.filter((m) => m.channel === c.id && (m.threadTs === null || m.threadTs === m.ts));
  const withEmail = (ctx: Ctx) => ctx.token.scopes.includes("users:read.email");

  /** latest/oldest/inclusive bounds over messages, as conversations.history and .replies apply them. */
  const inBounds = (ctx: Ctx) => {
    const latest = str(ctx.args, "latest");
    const oldest = str(ctx.args, "oldest") ?? "0";
    const inclusive = bool(ctx.args, "inclusive");
    for (const [k, v] of [["latest", latest], ["oldest", oldest]] as const) if (v !== undefined && !/^\d+(\.\d+)?$/.test(v)) throw new SlackError("invalid_ts_" + k);
    return (m: Message) => (latest === undefined || (inclusive ? cmpTs(m.ts, latest) <= 0 : cmpTs(m.ts, latest) < 0)) && (inclusive ? cmpTs(m.ts, oldest) >= 0 : cmpTs(m.ts, oldest) > 0);
  };

  const methods: Record<string, (ctx: Ctx) => Record<string, unknown>> = {
    "auth.test": (ctx) => ({ url: teamUrl(ctx.team), team: ctx.team.name, user: ctx.user.name, team_id: ctx.team.id, user_id: ctx.user.id, is_enterprise_install: false }),
    "auth.revoke": (ctx) => {
      if (bool(ctx.args, "test")) return { revoked: false };
      ctx.token.revoked = true;
      state.revoked.push(ctx.token.token);
      return { revoked: true };
    },
    "users.identity": (ctx) => {
      need(ctx, ["identity.basic"]);
      return { user: { name: ctx.user.realName, id: ctx.user.id, ...(ctx.token.scopes.includes("identity.email") ? { email: ctx.user.email } : {}) }, team: { id: ctx.team.id, name: ctx.team.name } };
    },
    "conversations.list": (ctx) => {
      const types = (str(ctx.args, "types") ?? "public_channel").split(",").map((s) => s.trim()).filter(Boolean);
      const scopeOf: Record<string, string> = { public_channel: "channels:read", private_channel: "groups:read", im: "im:read", mpim: "mpim:read" };
      for (const t of types) {
        if (!scopeOf[t]) throw new SlackError("invalid_types");
        need(ctx, [scopeOf[t]]);
      }
      const excludeArchived = bool(ctx.args, "exclude_archived");
      const all = [...channels.values()]
        .filter((c) => canSee(ctx, c) && types.includes(c.isPrivate ? "private_channel" : "public_channel") && !(excludeArchived && c.isArchived))
        .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
      const limit = int(ctx.args, "limit", 100, 1, 1000);
      const start = offsetOf(str(ctx.args, "cursor"));
      const page = all.slice(start, start + limit);
      return { channels: page.map((c) => channelObject(c, ctx.user)), response_metadata: { next_cursor: start + limit < all.length ? cursorOf(start + limit) : "" } };
    },
    "conversations.info": (ctx) => {
      need(ctx, ["channels:read", "groups:read", "im:read", "mpim:read"]);
      const c = channelArg(ctx);
      need(ctx, [readScope(c)]);
      return { channel: channelObject(c, ctx.user, bool(ctx.args, "include_num_members")) };
    },
    "conversations.history": (ctx) => {
      need(ctx, HISTORY_ANY);
      const c = channelArg(ctx);
      need(ctx, [historyScope(c)]);
      const limit = int(ctx.args, "limit", 100, 1, 999);
      const cursor = str(ctx.args, "cursor");
      const upTo = cursor ? tsOfCursor(cursor) : null;
      const ok = inBounds(ctx);
      const all = topLevel(c)
        .filter((m) => ok(m) && (upTo === null || cmpTs(m.ts, upTo) <= 0))
        .sort((a, b) => cmpTs(b.ts, a.ts));
      const page = all.slice(0, limit);
      const more = all.length > limit;
      return { messages: page.map(messageObject), has_more: more, pin_count: topLevel(c).filter((m) => m.pinned).length, ...(more ? { response_metadata: { next_cursor: tsCursor(all[limit]!.ts) } } : {}) };
    },
    "conversations.replies": (ctx) => {
      need(ctx, HISTORY_ANY);
      const c = channelArg(ctx);
      need(ctx, [historyScope(c)]);
      const t = required(ctx.args, "ts");
      const m = messages.find((x) => x.channel === c.id && x.ts === t);
      if (!m) throw new SlackError("thread_not_found");
      const parentTs = m.threadTs ?? m.ts;
      const limit = int(ctx.args, "limit", 1000, 1, 1000);
      const cursor = str(ctx.args, "cursor");
      const from = cursor ? tsOfCursor(cursor) : null;
      const ok = inBounds(ctx);
      const thread = messages
        .filter((x) => x.channel === c.id && (x.ts === parentTs || x.threadTs === parentTs))
        .sort((a, b) => cmpTs(a.ts, b.ts))
        .filter((x) => ok(x) && (from === null || cmpTs(x.ts, from) >= 0));
      const page = thread.slice(0, limit);
      const more = thread.length > limit;
      return { messages: page.map(messageObject), has_more: more, ...(more ? { response_metadata: { next_cursor: tsCursor(thread[limit]!.ts) } } : {}) };
    },
    "users.info": (ctx) => {
      need(ctx, ["users:read"]);
      const u = users.get(required(ctx.args, "user"));
      if (!u || u.team !== ctx.team.id) throw new SlackError("user_not_found");
      return { user: userObject(u, withEmail(ctx)) };
    },
    "users.list": (ctx) => {
      need(ctx, ["users:read"]);
      const all = [...users.values()].filter((u) => u.team === ctx.team.id).sort((a, b) => a.id.localeCompare(b.id));
      const limit = int(ctx.args, "limit", 0, 0, 1000) || all.length;
      const start = offsetOf(str(ctx.args, "cursor"));
      return { members: all.slice(start, start + limit).map((u) => userObject(u, withEmail(ctx))), cache_ts: Math.floor(Date.now() / 1000), response_metadata: { next_cursor: start + limit < all.length ? cursorOf(start + limit) : "" } };
    },
    "users.lookupByEmail": (ctx) => {
      need(ctx, ["users:read.email"]);
      const email = required(ctx.args, "email").toLowerCase();
      const u = [...users.values()].find((x) => x.team === ctx.team.id && x.email === email);
      if (!u) throw new SlackError("users_not_found");
      return { user: userObject(u, true) };
    },
    "search.messages": (ctx) => {
      need(ctx, ["search:read"]);
      const query = str(ctx.args, "query");
      if (!query) throw new SlackError("no_query");
      const q = slackQuery(query);
      const searchable = (m: Message): SearchableSlackMessage => {
        const c = channels.get(m.channel)!;
        const u = users.get(m.user)!;
        return { text: m.text, ts: m.ts, channel: { id: c.id, name: c.name }, user: { id: u.id, name: u.name }, fileNames: m.files.map((id) => files.get(id)!.name), reactions: m.reactions.map((r) => r.name), pinned: m.pinned, inThread: m.threadTs !== null || messages.some((r) => r.threadTs === m.ts && r.ts !== m.ts) };
      };
      const byTime = str(ctx.args, "sort") === "timestamp";
      const asc = str(ctx.args, "sort_dir") === "asc";
      const hits = messages
        .filter((m) => canSee(ctx, channels.get(m.channel)!))
        .map((m) => ({ m, s: searchable(m) }))
        .filter((x) => q.matches(x.s))
        .map((x) => ({ m: x.m, score: q.score(x.s) }))
        .sort((a, b) => {
          const order = byTime ? cmpTs(a.m.ts, b.m.ts) : a.score - b.score || cmpTs(a.m.ts, b.m.ts);
          return asc ? order : -order;
        });
      const count = int(ctx.args, "count", 20, 1, 100);
      const cursor = str(ctx.args, "cursor");
      const page = cursor ? null : int(ctx.args, "page", 1, 1, 100);
      const start = cursor ? (cursor === "*" ? 0 : offsetOf(cursor)) : (page! - 1) * count;
      const slice = hits.slice(start, start + count);
      const pages = Math.max(1, Math.ceil(hits.length / count));
      const pageNo = Math.floor(start / count) + 1;
      const matches = slice.map(({ m }) => {
        const c = channels.get(m.channel)!;
        const u = users.get(m.user)!;
        return {
          iid: randomUUID(),
          team: c.team,
          channel: { id: c.id, is_channel: !c.isPrivate, is_group: c.isPrivate, is_im: false, is_mpim: false, is_shared: false, is_org_shared: false, is_ext_shared: false, is_private: c.isPrivate, is_pending_ext_shared: false, pending_shared: [], name: c.name },
          type: "message",
          user: u.id,
          username: u.name,
          ts: m.ts,
          text: m.text,
          permalink: permalink(m),
          no_reactions: m.reactions.length === 0,
          ...(m.files.length ? { files: m.files.map((id) => fileObject(files.get(id)!)) } : {}),
        };
      });
      return {
        query,
        messages: {
          total: hits.length,
          pagination: { total_count: hits.length, page: pageNo, per_page: count, page_count: pages, first: hits.length ? start + 1 : 0, last: start + slice.length },
          paging: { count, total: hits.length, page: pageNo, pages },
          matches,
        },
        ...(cursor ? { response_metadata: { next_cursor: start + count < hits.length ? cursorOf(start + count) : "" } } : {}),
      };
    },
    "files.info": (ctx) => {
      need(ctx, ["files:read"]);
      const f = files.get(required(ctx.args, "file"));
      if (!f || !canSeeFile(ctx.user, f)) throw new SlackError("file_not_found");
      return { file: fileObject(f), comments: [], response_metadata: { next_cursor: "" } };
    },
    "chat.postMessage": (ctx) => {
      need(ctx, ["chat:write", "chat:write:user"]);
      const c = channelArg(ctx, "channel", true);
      if (c.isArchived) throw new SlackError("is_archived");
      if (!c.members.has(ctx.user.id)) throw new SlackError("not_in_channel");
      const text = str(ctx.args, "text");
      if (!text && !ctx.args.get("blocks") && !ctx.args.get("attachments")) throw new SlackError("no_text");
      if ((text ?? "").length > 40_000) throw new SlackError("msg_too_long");
      const threadTs = threadArg(c, str(ctx.args, "thread_ts"));
      const m: Message = { channel: c.id, ts: newTs(), user: ctx.user.id, text: text ?? "", threadTs, files: [], reactions: [], pinned: false };
      messages.push(m);
      state.posted.push({ channel: c.id, ts: m.ts, user: m.user, team: ctx.team.id, text: m.text, threadTs, files: [] });
      return { channel: c.id, ts: m.ts, message: { ...messageObject(m), ...(threadTs ? { thread_ts: threadTs } : {}) } };
    },
    "reactions.add": (ctx) => {
      need(ctx, ["reactions:write"]);
      if (!str(ctx.args, "channel") || !str(ctx.args, "timestamp")) throw new SlackError("no_item_specified");
      const c = channelArg(ctx);
      const name = required(ctx.args, "name").replace(/^:|:$/g, "");
      if (!/^[a-z0-9_+'-]+$/.test(name)) throw new SlackError("invalid_name");
      const m = messages.find((x) => x.channel === c.id && x.ts === str(ctx.args, "timestamp"));
      if (!m) throw new SlackError("message_not_found");
      let r = m.reactions.find((x) => x.name === name);
      if (r?.users.includes(ctx.user.id)) throw new SlackError("already_reacted");
      if (!r) m.reactions.push((r = { name, users: [] }));
      r.users.push(ctx.user.id);
      state.reactions.push({ channel: c.id, ts: m.ts, name, user: ctx.user.id });
      return {};
    },
    "files.getUploadURLExternal": (ctx) => {
      need(ctx, ["files:write"]);
      const filename = required(ctx.args, "filename");
      const length = Number(required(ctx.args, "length"));
      if (!Number.isInteger(length) || length < 1) throw new SlackError("invalid_arguments", { response_metadata: { messages: ["[ERROR] invalid value for field: length"] } });
      const fileId = `F0${randomBytes(5).toString("hex").toUpperCase()}`;
      const upload: SlackUpload = { fileId, uploadUrl: `${base}/upload/v1/${randomBytes(24).toString("base64url")}`, user: ctx.user.id, team: ctx.team.id, filename, length, bytes: null, completed: false, title: null, channel: null, threadTs: null, expiresAt: Date.now() + UPLOAD_TTL_MS };
      uploads.set(upload.uploadUrl, upload);
      state.uploads.push(upload);
      return { upload_url: upload.uploadUrl, file_id: fileId };
    },
    "files.completeUploadExternal": (ctx) => {
      need(ctx, ["files:write"]);
      let list = ctx.args.get("files");
      if (typeof list === "string") {
        try {
          list = JSON.parse(list);
        } catch {
          throw new SlackError("invalid_arguments", { response_metadata: { messages: ["[ERROR] invalid value for field: files"] } });
        }
      }
      if (!Array.isArray(list) || !list.length || list.some((x) => !x || typeof x !== "object" || typeof (x as { id?: unknown }).id !== "string"))
        throw new SlackError("invalid_arguments", { response_metadata: { messages: ["[ERROR] missing required field: files"] } });
      const wanted = list as { id: string; title?: unknown }[];
      const pending = wanted.map((w) => {
        const u = [...uploads.values()].find((x) => x.fileId === w.id && x.user === ctx.user.id && x.team === ctx.team.id);
        if (!u || u.completed || !u.bytes) throw new SlackError("file_not_found");
        return { u, title: typeof w.title === "string" && w.title ? w.title : u.filename };
      });
      const channelIds = [str(ctx.args, "channel_id"), ...(str(ctx.args, "channels") ?? "").split(",")].map((s) => s?.trim()).filter((s): s is string => !!s);
      const targets = [...new Set(channelIds)].map((id) => {
        const c = channels.get(id);
        if (!c || !canSee(ctx, c)) throw new SlackError("channel_not_found");
        if (c.isArchived) throw new SlackError("is_archived");
        if (!c.members.has(ctx.user.id)) throw new SlackError("not_in_channel");
        return c;
      });
      const tsArg = str(ctx.args, "thread_ts");
      if (tsArg && targets.length !== 1) throw new SlackError("invalid_arguments", { response_metadata: { messages: ["[ERROR] thread_ts needs exactly one channel"] } });
      const threadTs = targets[0] ? threadArg(targets[0], tsArg) : null;
      const now = Math.floor(Date.now() / 1000);
      const made = pending.map(({ u, title }) => {
        const f: SlackFile = { id: u.fileId, team: ctx.team.id, user: ctx.user.id, name: u.filename, title, mimetype: mimeOf(u.filename), filetype: (/\.([a-z0-9]+)$/i.exec(u.filename)?.[1] ?? "binary").toLowerCase(), created: now, bytes: u.bytes!, channels: [], shares: [] };
        u.completed = true;
        u.title = title;
        files.set(f.id, f);
        return f;
      });
      const comment = str(ctx.args, "initial_comment") ?? "";
      for (const c of targets) {
        const m: Message = { channel: c.id, ts: newTs(), user: ctx.user.id, text: comment, threadTs, files: made.map((f) => f.id), reactions: [], pinned: false };
        messages.push(m);
        for (const f of made) f.shares.push({ channel: c.id, ts: m.ts });
        for (const u of pending) {
          u.u.channel = c.id;
          u.u.threadTs = threadTs;
        }
        state.posted.push({ channel: c.id, ts: m.ts, user: m.user, team: ctx.team.id, text: comment, threadTs, files: made.map((f) => f.id) });
      }
      return { files: made.map(fileObject) };
    },
  };

  /** A thread_ts argument: a top-level message of the channel (its parent when a reply is named), or `invalid_thread_ts`. */
  function threadArg(c: Channel, t: string | undefined): string | null {
    if (!t) return null;
    const m = messages.find((x) => x.channel === c.id && x.ts === t);
    if (!m) throw new SlackError("invalid_thread_ts");
    return m.threadTs ?? m.ts;
  }

  function canSeeFile(u: User, f: SlackFile) {
    if (f.team !== u.team) return false;
    if (f.user === u.id) return true;
    return f.shares.some((s) => {
      const c = channels.get(s.channel)!;
      return !c.isPrivate || c.members.has(u.id);
    });
  }

  /** The token of a request (Bearer header, else a `token` argument for form and query requests) and what it opens. */
  function authenticate(req: IncomingMessage, args: Args | null): { token: SlackToken; user: User; team: Team } {
    const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "")?.[1]?.trim();
    const fromArgs = args && !args.json && typeof args.get("token") === "string" ? (args.get("token") as string) : undefined;
    const raw = bearer ?? fromArgs;
    if (!raw) throw new SlackError("not_authed");
    const t = tokens.get(raw);
    if (!t) throw new SlackError("invalid_auth");
    if (t.revoked) throw new SlackError("token_revoked");
    const user = users.get(t.user)!;
    if (user.deleted) throw new SlackError("account_inactive");
    return { token: t, user, team: teams.get(t.team)! };
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL, method: string, log: SlackRequest) {
    log.method = method;
    const raw = await readRaw(req, 10 * 1024 * 1024);
    if (mode === "ratelimited" && method !== "oauth.v2.access" && (!limitedMethods || limitedMethods.includes(method))) {
      log.status = 429;
      log.error = "ratelimited";
      return json(res, 429, { ok: false, error: "ratelimited" }, { "retry-after": String(state.retryAfter) });
    }
    try {
      const args = parseArgs(url, req, raw);
      if (method === "oauth.v2.access") return json(res, 200, oauthAccess(req, args));
      const fn = Object.hasOwn(methods, method) ? methods[method] : undefined;
      if (!fn) throw new SlackError("unknown_method");
      const who = authenticate(req, args);
      log.user = who.user.id;
      log.team = who.team.id;
      const scopeHeaders = { "x-oauth-scopes": who.token.scopes.join(","), "x-accepted-oauth-scopes": "" };
      try {
        return json(res, 200, { ok: true, ...fn({ ...who, args }) }, scopeHeaders);
      } catch (e) {
        if (e instanceof SlackError) {
          log.error = e.error;
          return json(res, 200, { ok: false, error: e.error, ...e.extra }, scopeHeaders);
        }
        throw e;
      }
    } catch (e) {
      if (!(e instanceof SlackError)) throw e;
      log.error = e.error;
      return json(res, 200, { ok: false, error: e.error, ...e.extra });
    }
  }

  /** url_private(_download): the bytes behind the user's token; without a valid one, Slack's sign-in redirect. */
  function handleFile(req: IncomingMessage, res: ServerResponse, url: URL, teamId: string, fileId: string, download: boolean, log: SlackRequest) {
    let who: { token: SlackToken; user: User; team: Team } | null = null;
    try {
      who = authenticate(req, null);
    } catch {
      who = null;
    }
    if (!who) {
      log.status = 302;
      res.writeHead(302, { location: `${base}/signin?redir=${encodeURIComponent(url.pathname)}` }).end();
      return;
    }
    log.user = who.user.id;
    log.team = who.team.id;
    const f = files.get(fileId);
    if (!f || f.team !== teamId || !canSeeFile(who.user, f)) throw new HttpFail(404, "File not found.");
    if (!who.token.scopes.includes("files:read")) throw new HttpFail(403, "This token may not read files (files:read).");
    res.writeHead(200, {
      "content-type": f.mimetype,
      "content-length": f.bytes.length,
      "cache-control": "private, no-store",
      ...(download ? { "content-disposition": `attachment; filename="${f.name.replace(/["\\]/g, "_")}"` } : {}),
    });
    res.end(req.method === "HEAD" ? undefined : f.bytes);
  }

  async function handleUpload(req: IncomingMessage, res: ServerResponse, url: URL) {
    const u = uploads.get(`${base}${url.pathname}`);
    if (!u || u.expiresAt < Date.now()) throw new HttpFail(404, "Unknown or expired upload URL.");
    if (u.bytes) throw new HttpFail(400, "This upload URL was already used.");
    const raw = await readRaw(req, 50 * 1024 * 1024);
    const type = req.headers["content-type"] ?? "";
    let bytes = raw;
    if (/^multipart\/form-data/i.test(type)) {
      const parts = multipart(raw, type);
      const part = parts.find((p) => p.filename !== null) ?? parts.find((p) => p.name === "file" || p.name === "filename");
      if (!part) throw new HttpFail(400, "No file in the multipart body.");
      bytes = part.data;
    }
    if (!bytes.length) throw new HttpFail(400, "Empty upload.");
    u.bytes = Buffer.from(bytes);
    const text = `OK - ${bytes.length}`;
    res.writeHead(200, { "content-type": "text/plain; charset=utf-8", "content-length": Buffer.byteLength(text) });
    res.end(text);
  }

  /**
   * The test hooks over HTTP, for tests in another process than the server (the e2e specs): behind the
   * client secret as a bearer token. See devSlackControl.
   */
  async function handleControl(req: IncomingMessage, res: ServerResponse, path: string) {
    if ((/^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "")?.[1] ?? "") !== clientSecret) throw new HttpFail(401, "The control endpoints need the client secret as a bearer token.");
    let body: Record<string, unknown> = {};
    if (req.method === "POST") {
      const raw = await readRaw(req, 64 * 1024);
      try {
        const v: unknown = raw.length ? JSON.parse(raw.toString("utf8")) : {};
        body = v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
      } catch {
        throw new HttpFail(400, "A JSON body is expected.");
      }
    }
    const strings = (v: unknown) => (Array.isArray(v) && v.every((x) => typeof x === "string") ? (v as string[]) : null);
    if (req.method === "GET" && path === "/_dev/state") {
      return json(res, 200, {
        mode,
        retryAfter: state.retryAfter,
        tokens: state.tokens.map((t) => ({ ...t, scopes: [...t.scopes] })),
        revoked: state.revoked,
        posted: state.posted,
        reactions: state.reactions,
        uploads: state.uploads.map(({ bytes, ...u }) => ({ ...u, size: bytes?.length ?? null })),
        requests: state.requests.slice(-1000),
      });
    }
    if (req.method === "POST" && path === "/_dev/mode") {
      if (body.mode !== "normal" && body.mode !== "ratelimited") throw new HttpFail(400, "mode is normal or ratelimited.");
      const retryAfter = body.retryAfter === undefined ? undefined : Number(body.retryAfter);
      if (retryAfter !== undefined && (!Number.isInteger(retryAfter) || retryAfter < 0)) throw new HttpFail(400, "retryAfter is a whole number of seconds.");
      const only = body.methods === undefined ? undefined : strings(body.methods);
      if (only === null) throw new HttpFail(400, "methods is a list of method names.");
      setMode(body.mode, { retryAfter, methods: only });
      return json(res, 200, { ok: true });
    }
    if (req.method === "POST" && (path === "/_dev/deactivate" || path === "/_dev/reactivate")) {
      if (typeof body.user !== "string" || !users.has(body.user)) throw new HttpFail(400, "user is a Slack user id.");
      (path === "/_dev/deactivate" ? state.deactivate : state.reactivate)(body.user);
      return json(res, 200, { ok: true });
    }
    if (req.method === "POST" && path === "/_dev/scopes") {
      const scopes = strings(body.scopes);
      if (typeof body.token !== "string" || !tokens.has(body.token) || !scopes) throw new HttpFail(400, "token is an issued token, scopes a list.");
      state.setScopes(body.token, scopes);
      return json(res, 200, { ok: true });
    }
    if (req.method === "POST" && path === "/_dev/tokens") {
      const scopes = strings(body.scopes);
      const u = typeof body.user === "string" ? resolveUser(body.user, typeof body.team === "string" ? body.team : undefined) : null;
      if (!u || !scopes) throw new HttpFail(400, "user (id or handle, with team) and scopes are needed.");
      return json(res, 200, { ok: true, token: state.issueToken({ user: u.id, scopes }) });
    }
    throw new HttpFail(404, "No such control endpoint.");
  }

  function setMode(next: SlackMode, o?: { retryAfter?: number; methods?: string[] }) {
    mode = next;
    limitedMethods = next === "ratelimited" && o?.methods ? [...o.methods] : null;
    if (o?.retryAfter !== undefined) state.retryAfter = o.retryAfter;
  }

  async function handle(req: IncomingMessage, res: ServerResponse, log: SlackRequest) {
    const url = new URL(req.url ?? "/", "http://local");
    const path = url.pathname;
    let m: RegExpExecArray | null;
    if (path === "/oauth/v2/authorize") return handleOauth(req, res, url);
    if (path.startsWith("/_dev/")) return handleControl(req, res, path);
    if ((m = /^\/api\/([A-Za-z0-9_.]+)$/.exec(path))) {
      if (req.method !== "GET" && req.method !== "POST") throw new HttpFail(405, "Method not allowed.");
      return handleApi(req, res, url, m[1]!, log);
    }
    if ((m = /^\/files-pri\/(T[A-Z0-9]+)-(F[A-Z0-9]+)\/(download\/)?[^/]+$/.exec(path)) && (req.method === "GET" || req.method === "HEAD")) return handleFile(req, res, url, m[1]!, m[2]!, !!m[3], log);
    if (/^\/upload\/v1\/[A-Za-z0-9_-]+$/.test(path) && req.method === "POST") return handleUpload(req, res, url);
    if (path === "/signin" && req.method === "GET")
      return html(res, 200, "Sign in to Local Slack", `<h1>Sign in to Local Slack</h1><p>This file needs you signed in. Apps fetch it with <code>Authorization: Bearer xoxp-…</code> and the <code>files:read</code> scope.</p>`);
    if ((m = /^\/([a-z0-9-]+)\/archives\/([A-Z0-9]+)\/p(\d{16})$/.exec(path)) && req.method === "GET") {
      const c = channels.get(m[2]!);
      const t = `${m[3]!.slice(0, 10)}.${m[3]!.slice(10)}`;
      const msg = c && messages.find((x) => x.channel === c.id && x.ts === t);
      if (!c || !msg) throw new HttpFail(404, "Message not found.");
      const u = users.get(msg.user)!;
      return html(res, 200, `#${c.name} — Local Slack`, `<h1>#${esc(c.name)}</h1><p><strong>${esc(u.realName)}</strong> <time datetime="${new Date(tsSeconds(t) * 1000).toISOString()}">${new Date(tsSeconds(t) * 1000).toUTCString()}</time></p><p>${esc(msg.text)}</p>`);
    }
    const home = /^\/([a-z0-9-]+)\/$/.exec(path);
    const homeTeam = home && [...teams.values()].find((t) => t.domain === home[1]);
    if (homeTeam && req.method === "GET") {
      const list = [...channels.values()].filter((c) => c.team === homeTeam.id && !c.isPrivate);
      return html(res, 200, `${homeTeam.name} — Local Slack`, `<h1>${esc(homeTeam.name)}</h1><p>A workspace of the local Slack.</p><ul>${list.map((c) => `<li>#${esc(c.name)}${c.isArchived ? " (archived)" : ""}</li>`).join("")}</ul>`);
    }
    if (path === "/" && req.method === "GET")
      return html(res, 200, "Local Slack", `<h1>Local Slack</h1><p>A Slack-compatible server for development: OAuth at <code>/oauth/v2/authorize</code>, the Web API under <code>/api/</code>.</p>`);
    throw new HttpFail(404, "Not found.");
  }

  const server = createServer((req, res) => {
    const log: SlackRequest = { at: Date.now(), httpMethod: req.method ?? "GET", path: (req.url ?? "/").split("?")[0]!, method: null, user: null, team: null, status: 200, error: null };
    if (!log.path.startsWith("/_dev/")) state.requests.push(log); // the test hooks are not Slack's traffic
    handle(req, res, log).catch((err: unknown) => {
      const e = err instanceof HttpFail ? err : new HttpFail(500, "Internal error.");
      if (!(err instanceof HttpFail)) console.error("[fake-slack]", err);
      log.status = e.status;
      log.error = e.message;
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(e.status, { "content-type": "text/plain; charset=utf-8" });
        res.end(e.message);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, host, resolve));
  base = `http://${host}:${(server.address() as AddressInfo).port}`;

  return {
    url: base,
    state,
    setMode,
    env: {
      REALMGATE_DEVSLACK_CLIENT_ID: DEVSLACK_CLIENT_ID,
      REALMGATE_DEVSLACK_CLIENT_SECRET: clientSecret,
      REALMGATE_DEVSLACK_AUTHORIZE_URL: `${base}/oauth/v2/authorize`,
      REALMGATE_DEVSLACK_TOKEN_URL: `${base}/api/oauth.v2.access`,
      REALMGATE_DEVSLACK_API_URL: `${base}/api`,
      REALMGATE_DEVSLACK_NAME: opts.name ?? "Local Slack",
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function mimeOf(name: string): string {
  const ext = (/\.([a-z0-9]+)$/i.exec(name)?.[1] ?? "").toLowerCase();
  return ({ png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", txt: "text/plain", csv: "text/csv", pdf: "application/pdf", json: "application/json" } as Record<string, string>)[ext] ?? "application/octet-stream";
}

/**
 * For tests without a browser: play the person at the local Slack's authorization page. Loads
 * `authorizationUrl`, submits it as `login` (alice, bob or sam) in `team` (a workspace id or name; the page's
 * first one when omitted), or cancels, and returns the URL it redirects to — the app's callback with `code`
 * and `state` (or `error=access_denied`) — without requesting it.
 */
export async function approveAtDevSlack(authorizationUrl: string, opts: { login: string; team?: string; decline?: boolean }): Promise<string> {
  const page = await fetch(authorizationUrl, { redirect: "manual" });
  const text = await page.text();
  if (page.status !== 200) throw new Error(`the local Slack answered ${page.status}: ${text.replace(/<(style|script)[\s\S]*?<\/\1>/g, "").replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim().slice(0, 300)}`);
  const fields = new URLSearchParams();
  for (const [, name, value] of text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields.set(name!, unesc(value!));
  const workspaces = [...text.matchAll(/name="workspace" value="([^"]+)"[^>]*> ([^<]+)<\/label>/g)].map(([, id, name]) => ({ id: id!, name: unesc(name!) }));
  const team = opts.team ? workspaces.find((w) => w.id === opts.team || w.name.toLowerCase() === opts.team!.toLowerCase()) : workspaces[0];
  if (!team) throw new Error(`no workspace ${opts.team} on the authorization page (${workspaces.map((w) => w.name).join(", ")})`);
  fields.set("login", opts.login);
  fields.set("workspace", team.id);
  fields.set("decision", opts.decline ? "deny" : "allow");
  const res = await fetch(new URL("/oauth/v2/authorize", authorizationUrl), { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded" }, body: fields.toString() });
  if (res.status !== 302) {
    const body = await res.text();
    throw new Error(`the local Slack did not redirect (${res.status}): ${/role="alert">([^<]*)</.exec(body)?.[1] ?? body.slice(0, 200)}`);
  }
  return res.headers.get("location")!;
}

const unesc = (s: string) => s.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));

export type DevSlackSnapshot = {
  mode: SlackMode;
  retryAfter: number;
  tokens: SlackToken[];
  revoked: string[];
  posted: SlackPosted[];
  reactions: { channel: string; ts: string; name: string; user: string }[];
  uploads: (Omit<SlackUpload, "bytes"> & { size: number | null })[];
  requests: SlackRequest[];
};

/**
 * The test hooks of a local Slack running in another process (the e2e run starts it in its global setup),
 * over its `/_dev/` endpoints: `env` is its REALMGATE_DEVSLACK_* environment (the API URL and the client secret).
 */
export function devSlackControl(env: Record<string, string | undefined>) {
  const api = env.REALMGATE_DEVSLACK_API_URL;
  const secret = env.REALMGATE_DEVSLACK_CLIENT_SECRET;
  if (!api || !secret) throw new Error("REALMGATE_DEVSLACK_API_URL and REALMGATE_DEVSLACK_CLIENT_SECRET are needed");
  const base = api.replace(/\/api\/?$/, "");
  const send = async (path: string, body?: unknown) => {
    const res = await fetch(`${base}/_dev/${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { authorization: `Bearer ${secret}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`the local Slack refused ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
  return {
    state: async () => (await send("state")) as unknown as DevSlackSnapshot,
    setMode: async (mode: SlackMode, opts: { retryAfter?: number; methods?: string[] } = {}) => void (await send("mode", { mode, ...opts })),
    deactivate: async (userId: string) => void (await send("deactivate", { user: userId })),
    reactivate: async (userId: string) => void (await send("reactivate", { user: userId })),
    setScopes: async (token: string, scopes: string[]) => void (await send("scopes", { token, scopes })),
    issueToken: async (user: string, scopes: string[], team?: string) => (await send("tokens", { user, scopes, team })).token as string,
  };
}
