// The Slack realm end to end through the one dispatcher: gate one (grants), gate two (connected workspaces and
// claims), and a small Slack-shaped server below (Slack's real wire: HTTP 200 with {ok:false, error}, cursors,
// bearer-token file downloads, the external upload flow). When dev/fake-slack.ts exists, it replaces the stub and
// the provider below is the real `slack` provider.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { connectedAccounts } from "@/db/schema";
import { errorOf, inCall, makeTenant, refusingDelivery, type TestTenant } from "@/test-support";
import type { ActorContext, UserContext } from "@/lib/authz/context";
import { createActor } from "@/lib/authz/actors";
import { createGrant, revokeGrant } from "@/lib/authz/grants";
import { disconnectAccount, sealTokens } from "@/lib/connections/accounts";
import { apiFamilies, configuredProviders, findProvider, type ApiFamily, type ProviderConfig } from "@/lib/connections/providers";
import { env } from "@/lib/env";
import { newId } from "@/lib/ids";
import { manifestSchema, operationKeysOf } from "@/lib/realms/contract";
import { dispatch } from "@/lib/tools/dispatch";
import { redeemLiveUrl } from "@/lib/tools/files";
import { errorResponse } from "@/lib/http/route";
import { serveLiveUrl } from "@/lib/tools/live-files";
import { manifest } from "./manifest";
import { adapter, parseSlackRef } from "./adapter";
import { presentRequest } from "./presenter";
import { fileHostAllowed } from "./wire";

// ── The provider, until lib/connections/providers/slack exists in this tree: Slack's API family and a config
// pointing at the stub, added to the real registry for this file (test files share modules: no module mock). Its
// classify speaks Slack's dialect (missing_scope, invalid_auth, 429).
const family: ApiFamily = {
  id: "slack",
  label: "Slack",
  claims: [
    { name: "slack:read", label: "Read channels, messages and people", request: "channels:history", satisfiedBy: ["channels:history"] },
    { name: "slack:files:read", label: "Open files", request: "files:read", satisfiedBy: ["files:read"] },
    { name: "slack:write", label: "Post as you", request: "chat:write", satisfiedBy: ["chat:write"] },
    { name: "slack:files:write", label: "Upload files", request: "files:write", satisfiedBy: ["files:write"] },
  ],
};
const providerConfig = (url: string): ProviderConfig => ({
  id: "slack",
  label: "Slack",
  api: "slack",
  apiBaseUrl: `${url}/api`,
  issuer: url,
  issuerAliases: [],
  endpoints: { authorization: `${url}/oauth`, token: `${url}/api/oauth.v2.access`, revocation: null, jwks: `${url}/jwks` },
  clientId: "c",
  clientSecret: "s",
  tokenAuthMethod: "client_secret_post",
  baseScopes: [],
  authParams: { connect: {}, upgrade: {}, reconnect: {} },
  incremental: "missing_only",
  mapTokens: () => null,
  identity: { kind: "id_token" },
  classify({ status, body }) {
    const b = body as { ok?: boolean; error?: string } | null;
    if (status === 429 || status >= 500) return { outcome: "unavailable", message: null };
    if (b?.ok === false && b.error === "missing_scope") return { outcome: "missing_scope", message: b.error };
    if (b?.ok === false && ["invalid_auth", "token_revoked", "account_inactive", "not_authed"].includes(b.error ?? "")) return { outcome: "auth_invalid", message: b.error ?? null };
    return { outcome: "ok", message: null };
  },
});
const hadSlack = Object.hasOwn(apiFamilies, "slack");
let added: ProviderConfig | null = null;
function registerProvider(url: string) {
  if (!hadSlack) apiFamilies.slack = family;
  if (!findProvider("slack")) configuredProviders().push((added = providerConfig(url)));
}
function unregisterProvider() {
  if (!hadSlack) delete apiFamilies.slack;
  const list = configuredProviders();
  if (added && list.includes(added)) list.splice(list.indexOf(added), 1);
}

// ── A Slack-shaped server: one workspace, a channel whose message (Cyrillic and English) carries three PNGs.
const PNG_SIG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const png = (n: number) => Buffer.from([...PNG_SIG, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, n, n, n, n, 8, 6, 0, 0, 0]);
const CH = "C0LAUNCH01";
const TS = "1764590000.000200";
const TEXT = "Макеты для запуска готовы — the launch mockups are ready";
type Token = { scopes: string[]; revoked?: boolean };
const tokens = new Map<string, Token>();
const uploads: { id: string; bytes: Buffer; completed?: Record<string, unknown> }[] = [];
const posts: Record<string, unknown>[] = [];
const files = [1, 2, 3].map((n) => ({ id: `F0MOCK0${n}`, name: `mockup-${n}.png`, title: `Mockup ${n}`, mimetype: "image/png", filetype: "png", size: png(n).length, user: "U0ANA0001", created: 1764590000, bytes: png(n) }));
const messages = [
  { type: "message", ts: "1764589000.000100", user: "U0BOB0001", text: "Who has the launch mockups?" },
  { type: "message", ts: TS, user: "U0ANA0001", text: TEXT, files: files.map(({ bytes: _b, ...f }) => ({ ...f, url_private: `${"{base}"}/files-pri/T0DEMO-${f.id}/${f.name}`, url_private_download: `${"{base}"}/files-pri/T0DEMO-${f.id}/download/${f.name}` })) },
  { type: "message", ts: "1764591000.000300", user: "U0BOB0001", text: "Looks great" },
];
const users = [
  { id: "U0ANA0001", name: "ana", real_name: "Ана Иванова", profile: { display_name: "ana", real_name: "Ана Иванова", title: "Designer", email: "ana@demo.test" } },
  { id: "U0BOB0001", name: "bob", real_name: "Bob Stone", profile: { display_name: "bob", real_name: "Bob Stone", title: "PM", email: "bob@demo.test" } },
  { id: "U0BOB0002", name: "bobby", real_name: "Bobby Tables", profile: { display_name: "bobby", real_name: "Bobby Tables", email: "bobby@demo.test" } },
];
const channels = [
  { id: CH, name: "launch", is_channel: true, is_private: false, topic: { value: "Launch week" }, purpose: { value: "Ship it" }, num_members: 3 },
  { id: "C0RANDOM01", name: "random", is_channel: true, is_private: false, topic: { value: "" }, purpose: { value: "" }, num_members: 3 },
];
const SCOPE_OF: Record<string, string> = {
  "search.messages": "channels:history",
  "conversations.history": "channels:history",
  "conversations.replies": "channels:history",
  "conversations.info": "channels:history",
  "conversations.list": "channels:history",
  "users.info": "channels:history",
  "users.list": "channels:history",
  "users.lookupByEmail": "channels:history",
  "files.info": "files:read",
  "chat.postMessage": "chat:write",
  "reactions.add": "chat:write",
  "files.getUploadURLExternal": "files:write",
  "files.completeUploadExternal": "files:write",
};
let base = "";
const withBase = <T,>(v: T): T => JSON.parse(JSON.stringify(v).replaceAll("{base}", base)) as T;

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Every query search.messages was asked, in order. */
const searchQueries: string[] = [];

async function handle(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? "/", base);
  const json = (status: number, v: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
    res.end(JSON.stringify(v));
  };
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
  const tok = bearer ? tokens.get(bearer) : undefined;
  if (url.pathname.startsWith("/upload/v1/")) {
    const u = uploads.find((x) => x.id === url.pathname.split("/").pop());
    if (!u) return json(404, { ok: false });
    u.bytes = await body(req);
    res.writeHead(200, { "content-type": "text/plain" });
    return res.end(`OK - ${u.bytes.length}`);
  }
  if (url.pathname.startsWith("/files-pri/")) {
    const f = files.find((x) => url.pathname.includes(`-${x.id}/`));
    // Slack answers a bad token for a file with its sign-in page, status 200.
    if (!tok || tok.revoked || !tok.scopes.includes("files:read")) {
      res.writeHead(200, { "content-type": "text/html" });
      return res.end("<html>sign in</html>");
    }
    if (!f) return json(404, {});
    if (tok.scopes.includes("ratelimited_files")) return json(429, {}, { "retry-after": "7" });
    res.writeHead(200, { "content-type": "image/png", "content-length": String(f.bytes.length) });
    return res.end(f.bytes);
  }
  const method = url.pathname.replace(/^\/api\//, "");
  const raw = req.method === "POST" ? await body(req) : Buffer.alloc(0);
  const args: Record<string, unknown> = { ...Object.fromEntries(url.searchParams), ...(raw.length ? JSON.parse(raw.toString("utf8")) : {}) };
  if (!tok) return json(200, { ok: false, error: "not_authed" });
  if (tok.revoked) return json(200, { ok: false, error: "token_revoked" });
  if (args.ratelimit_me || tok.scopes.includes("ratelimited")) return json(429, { ok: false, error: "ratelimited" }, { "retry-after": "30" });
  const need = SCOPE_OF[method];
  if (!need) return json(200, { ok: false, error: "unknown_method" });
  if (!tok.scopes.includes(need)) return json(200, { ok: false, error: "missing_scope", needed: need, provided: tok.scopes.join(",") });
  const ch = (id: unknown) => channels.find((c) => c.id === id);
  switch (method) {
    case "search.messages": {
      const q = String(args.query ?? "");
      searchQueries.push(q);
      const words = q.split(/\s+/).filter((w) => w && !w.includes(":"));
      const inCh = /in:#?([\w-]+)/.exec(q)?.[1];
      const matches = messages.filter((m) => words.every((w) => m.text.toLowerCase().includes(w.toLowerCase())) && (!inCh || inCh === "launch"));
      return json(200, { ok: true, query: q, messages: { total: matches.length, matches: withBase(matches.map((m) => ({ ...m, channel: { id: CH, name: "launch" }, username: m.user === "U0ANA0001" ? "ana" : "bob", iid: m.ts }))), paging: { count: 20, total: matches.length, page: 1, pages: 1 } }, response_metadata: { next_cursor: "" } });
    }
    case "conversations.info":
      return ch(args.channel) ? json(200, { ok: true, channel: ch(args.channel) }) : json(200, { ok: false, error: "channel_not_found" });
    case "conversations.history": {
      if (!ch(args.channel)) return json(200, { ok: false, error: "channel_not_found" });
      const inclusive = args.inclusive === "true" || args.inclusive === true;
      const latest = args.latest ? Number(args.latest) : Infinity;
      const oldest = args.oldest ? Number(args.oldest) : 0;
      const inRange = (args.channel === CH ? messages : []).filter((m) => (inclusive ? Number(m.ts) <= latest && Number(m.ts) >= oldest : Number(m.ts) < latest && Number(m.ts) > oldest));
      const newestFirst = [...inRange].reverse();
      const limit = Number(args.limit ?? 100);
      return json(200, { ok: true, messages: withBase(newestFirst.slice(0, limit)), has_more: newestFirst.length > limit, response_metadata: { next_cursor: "" } });
    }
    case "conversations.replies":
      return json(200, { ok: true, messages: withBase(messages.filter((m) => m.ts === args.ts)), has_more: false });
    case "conversations.list": {
      const start = Number(args.cursor ? Buffer.from(String(args.cursor), "base64").toString().replace("next:", "") : 0);
      const limit = Number(args.limit ?? 100);
      const page = channels.slice(start, start + limit);
      return json(200, { ok: true, channels: page, response_metadata: { next_cursor: start + limit < channels.length ? Buffer.from(`next:${start + limit}`).toString("base64") : "" } });
    }
    case "users.info": {
      const u = users.find((x) => x.id === args.user);
      return u ? json(200, { ok: true, user: u }) : json(200, { ok: false, error: "user_not_found" });
    }
    case "users.list":
      return json(200, { ok: true, members: users, response_metadata: { next_cursor: "" } });
    case "users.lookupByEmail": {
      const u = users.find((x) => x.profile.email === args.email);
      return u ? json(200, { ok: true, user: u }) : json(200, { ok: false, error: "users_not_found" });
    }
    case "files.info": {
      const f = files.find((x) => x.id === args.file);
      if (!f) return json(200, { ok: false, error: "file_not_found" });
      const { bytes: _b, ...meta } = f;
      return json(200, { ok: true, file: { ...meta, url_private: `${base}/files-pri/T0DEMO-${f.id}/${f.name}`, url_private_download: `${base}/files-pri/T0DEMO-${f.id}/download/${f.name}` } });
    }
    case "chat.postMessage": {
      if (!ch(args.channel)) return json(200, { ok: false, error: "channel_not_found" });
      posts.push(args);
      return json(200, { ok: true, channel: args.channel, ts: `17646000${String(posts.length).padStart(2, "0")}.000100`, message: { text: args.text } });
    }
    case "reactions.add":
      posts.push({ reaction: args });
      return json(200, args.name === "eyes" ? { ok: false, error: "already_reacted" } : { ok: true });
    case "files.getUploadURLExternal": {
      const id = `F0UPLD${String(uploads.length + 1).padStart(2, "0")}`;
      uploads.push({ id, bytes: Buffer.alloc(0) });
      return json(200, { ok: true, upload_url: `${base}/upload/v1/${id}`, file_id: id });
    }
    case "files.completeUploadExternal": {
      const f = (args.files as { id: string; title?: string }[])[0]!;
      const u = uploads.find((x) => x.id === f.id)!;
      u.completed = args;
      return json(200, { ok: true, files: [{ id: f.id, title: f.title }] });
    }
  }
  return json(200, { ok: false, error: "unknown_method" });
}

let server: Server;
beforeAll(async () => {
  server = createServer((req, res) => void handle(req, res).catch(() => res.writeHead(500).end()));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  registerProvider(base);
});
afterAll(async () => {
  unregisterProvider();
  await new Promise<void>((r) => server.close(() => r()));
});

/** What the route /api/v1/files/live answers (it is serveLiveUrl inside route()). */
async function live(req: Request): Promise<Response> {
  try {
    return await serveLiveUrl(await getDb(), req);
  } catch (err) {
    return errorResponse(err, "req_test");
  }
}
const liveGet = live;
const livePut = live;

// ── Worlds.
const READS = ["provider.about", "object.schema", "object.list", "object.search", "object.get"];
const ALL_SCOPES = ["channels:history", "files:read", "chat:write", "files:write"];
const ALL_CLAIMS = ["slack:read", "slack:files:read", "slack:write", "slack:files:write"];
type World = { t: TestTenant; alice: UserContext; agent: ActorContext; grantId: string };

async function world(operations: string[] = [...READS, "object.action.post_message", "object.action.reply_in_thread", "object.action.add_reaction", "object.action.request_upload"]): Promise<World> {
  const t = await makeTenant();
  const alice = t.users.alice!;
  const { actor } = await createActor(t.db, alice, { name: "Slack helper", kind: "automation", issue_token: false, token_expires_in_days: null });
  const grant = await createGrant(t.db, alice, { actor_id: actor.id, namespace: "slack", operations, resource_scope: null, expires: "1d" });
  const agent: ActorContext = { kind: "actor", tenantId: t.tenantId, actorId: actor.id, actorKind: "automation", actorName: actor.name, grantorId: alice.userId, via: "actor_token", credentialId: "tok_test", requestId: newId("req") };
  return { t, alice, agent, grantId: grant.id };
}

/** A connected workspace for alice, as the provider's flow would leave it; its token lives at the stub. */
async function connect(w: World, opts: { label?: string; scopes?: string[]; claims?: string[] } = {}) {
  const id = newId("acc");
  const token = `xoxp-${newId("req").slice(4)}`;
  tokens.set(token, { scopes: opts.scopes ?? ALL_SCOPES });
  const who = { tenantId: w.t.tenantId, userId: w.alice.userId, id };
  await w.t.db.insert(connectedAccounts).values({
    id,
    tenantId: w.t.tenantId,
    userId: w.alice.userId,
    provider: "slack",
    api: "slack",
    externalId: `T0DEMO:U0ANA0001:${id}`,
    email: "ana@demo.test",
    label: opts.label ?? "Demo workspace",
    claims: opts.claims ?? ALL_CLAIMS,
    scopes: opts.scopes ?? ALL_SCOPES,
    status: "active",
    ...sealTokens(who, { access_token: token, refresh_token: null }),
  });
  return { id, token };
}

type Items = { items: { ref: string; kind: string; label: string; summary?: string }[]; next_cursor: string | null };
type Channel = { messages: { ref: string; text: string; files: { ref: string; name: string; mimetype: string }[] }[]; focus?: string; cursor: { earlier: string | null; latest: string } };
type FileObj = { name: string; mimetype: string; size: number; download: { encoding: string; url: string; expires_at: string } };

const ACC = "acc_0123456789abcdefghij";

describe("slack refs", () => {
  it("parse every ref form, carrying the account", () => {
    expect(parseSlackRef(`slack:${ACC}:channel:C0LAUNCH01`)).toEqual({ type: "channel", accountId: ACC, channel: "C0LAUNCH01", at: null });
    expect(parseSlackRef(`slack:${ACC}:channel:C0LAUNCH01@1764590000.000200`)).toEqual({ type: "channel", accountId: ACC, channel: "C0LAUNCH01", at: "1764590000.000200" });
    expect(parseSlackRef(`slack:${ACC}:message:G0PRIV01:1764590000.000200`)).toEqual({ type: "message", accountId: ACC, channel: "G0PRIV01", ts: "1764590000.000200" });
    expect(parseSlackRef(`slack:${ACC}:file:F0MOCK01`)).toEqual({ type: "file", accountId: ACC, file: "F0MOCK01" });
    expect(parseSlackRef(`slack:${ACC}:user:U0ANA0001`)).toEqual({ type: "user", accountId: ACC, user: "U0ANA0001" });
    expect(adapter.parseRef(`slack:${ACC}:channel:C0LAUNCH01@1764590000.000200`)).toEqual({ kind: "slack.channel", account_id: ACC });
    expect(adapter.parseRef(`slack:${ACC}:file:F0MOCK01`)).toEqual({ kind: "slack.file", account_id: ACC });
  });

  it.each([
    "slack:channel:C0LAUNCH01",
    `slack:acc_short:channel:C0LAUNCH01`,
    `slack:${ACC}:channel:c0launch01`,
    `slack:${ACC}:channel:C0LAUNCH01@1764590000`,
    `slack:${ACC}:channel:C0LAUNCH01@1764590000.000200x`,
    `slack:${ACC}:message:C0LAUNCH01`,
    `slack:${ACC}:message:U0ANA0001:1764590000.000200`,
    `slack:${ACC}:file:C0LAUNCH01`,
    `slack:${ACC}:user:F0MOCK01`,
    `slack:${ACC}:thread:C0LAUNCH01`,
    `mail:gmail:${ACC}:message:abc`,
    `slack:${ACC}:file:F0MOCK01 `,
  ])("refuse %s by syntax", (ref) => {
    expect(() => adapter.parseRef(ref)).toThrowError(expect.objectContaining({ code: "invalid_ref" }));
  });
});

describe("the slack manifest", () => {
  it("parses, offers no file hosting, and every action names its claims and risk", () => {
    expect(manifestSchema.safeParse(manifest).success).toBe(true);
    expect(manifest.connection).toEqual({ api: "slack" });
    expect(operationKeysOf(manifest)).not.toContain("file.host");
    expect(Object.fromEntries(manifest.actions.map((a) => [a.name, [a.risk, a.claims]]))).toEqual({
      post_message: ["write", ["slack:write"]],
      reply_in_thread: ["write", ["slack:read", "slack:write"]],
      add_reaction: ["write", ["slack:write"]],
      request_upload: ["write", ["slack:files:write"]],
    });
    expect(manifest.claims.map((c) => c.name)).toEqual(ALL_CLAIMS);
  });
});

describe("discovery", () => {
  it("capability search finds Slack's operations by what a person would say, and each contract reads", async () => {
    const w = await world();
    type Match = { namespace: string; operation: string };
    const find = async (query: string) => ((await dispatch(w.agent, "object_schema", { query })) as { matches: Match[] }).matches.filter((m) => m.namespace === "slack").map((m) => m.operation);
    expect(await find("search slack messages")).toContain("object.search");
    expect(await find("post a message in a slack channel")).toContain("object.action.post_message");
    expect(await find("upload a file to slack")).toContain("object.action.request_upload");
    const contract = (await dispatch(w.agent, "object_schema", { namespace: "slack", operation: "object.action.add_reaction" })) as Record<string, unknown>;
    expect(JSON.stringify(contract)).toContain("thumbsup");
  });
});

describe("the seed's trace", () => {
  it("search (Cyrillic) → a windowed ref → three file refs → three signed URLs → three PNGs, no token or bytes in any result", async () => {
    const w = await world();
    const { id, token } = await connect(w);
    const results: unknown[] = [];
    const found = (await dispatch(w.agent, "search_objects", { namespace: "slack", kind: "slack.message", query: "Макеты in:#launch" })) as Items;
    results.push(found);
    expect(found.items).toHaveLength(1);
    expect(found.items[0]).toMatchObject({ ref: `slack:${id}:channel:${CH}@${TS}`, kind: "slack.message" });
    expect(found.items[0]!.summary).toContain("Макеты для запуска");

    const channel = (await dispatch(w.agent, "get_object", { ref: found.items[0]!.ref })) as Channel;
    results.push(channel);
    expect(channel.focus).toBe(`slack:${id}:message:${CH}:${TS}`);
    expect(channel.messages.map((m) => m.text)).toEqual(["Who has the launch mockups?", TEXT]); // the window ends at the hit
    const fileRefs = channel.messages[1]!.files.map((f) => f.ref);
    expect(fileRefs).toEqual([1, 2, 3].map((n) => `slack:${id}:file:F0MOCK0${n}`));

    for (const [i, ref] of fileRefs.entries()) {
      const f = (await dispatch(w.agent, "get_object", { ref })) as FileObj;
      results.push(f);
      expect(f).toMatchObject({ name: `mockup-${i + 1}.png`, mimetype: "image/png", download: { encoding: "url" } });
      expect(f.download.url.startsWith(`${env().appUrl}/api/v1/files/live?`)).toBe(true);
      const res = await liveGet(new Request(f.download.url));
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/png");
      expect(res.headers.get("content-disposition")).toBe(`attachment; filename*=UTF-8''mockup-${i + 1}.png`);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect([...bytes.slice(0, 8)]).toEqual(PNG_SIG);
      expect(Buffer.from(bytes).equals(files[i]!.bytes)).toBe(true);
    }
    const text = JSON.stringify(results);
    expect(text).not.toContain(token);
    expect(text).not.toContain("xoxp-");
    expect(text).not.toContain(`${base}/files-pri`); // Slack's own file URLs (which need the token) stay inside
    expect(text).not.toContain(Buffer.from(files[0]!.bytes).toString("base64"));
  });

  it("the channel without a window gives its newest messages; a message gives its text, author and files", async () => {
    const w = await world();
    const { id } = await connect(w);
    const latest = (await dispatch(w.agent, "get_object", { ref: `slack:${id}:channel:${CH}` })) as Channel & { name: string };
    expect(latest.name).toBe("launch");
    expect(latest.messages.map((m) => m.text)).toEqual(["Who has the launch mockups?", TEXT, "Looks great"]);
    expect(latest.cursor).toEqual({ earlier: null, latest: `slack:${id}:channel:${CH}` });
    const msg = (await dispatch(w.agent, "get_object", { ref: `slack:${id}:message:${CH}:${TS}` })) as { text: string; author: { name: string; ref: string }; files: unknown[]; channel: string };
    expect(msg).toMatchObject({ text: TEXT, author: { name: "ana", ref: `slack:${id}:user:U0ANA0001` }, channel: `slack:${id}:channel:${CH}@${TS}` });
    expect(msg.files).toHaveLength(3);
    const gone = await errorOf(dispatch(w.agent, "get_object", { ref: `slack:${id}:message:${CH}:1764599999.000000` }));
    expect(gone.code).toBe("not_found");
  });

  it("lists channels with a cursor, and resolves channels and people by name, handle and email (ambiguity → choices)", async () => {
    const w = await world();
    const { id } = await connect(w);
    const first = (await dispatch(w.agent, "list_objects", { namespace: "slack", kind: "slack.channel", limit: 1 })) as Items;
    expect(first.items.map((i) => i.label)).toEqual(["#launch"]);
    const second = (await dispatch(w.agent, "list_objects", { namespace: "slack", kind: "slack.channel", limit: 1, cursor: first.next_cursor })) as Items;
    expect(second.items.map((i) => i.label)).toEqual(["#random"]);
    const people = (await dispatch(w.agent, "list_objects", { namespace: "slack", kind: "slack.user" })) as Items;
    expect(people.items.map((i) => i.label)).toEqual(["ana", "bob", "bobby"]);
    const byName = (await dispatch(w.agent, "get_object", { namespace: "slack", kind: "slack.channel", selector: { name: "#launch" } })) as { ref: string };
    expect(byName.ref).toBe(`slack:${id}:channel:${CH}`);
    const byEmail = (await dispatch(w.agent, "get_object", { namespace: "slack", kind: "slack.user", selector: { email: "bob@demo.test" } })) as { handle: string };
    expect(byEmail.handle).toBe("bob");
    const byHandle = (await dispatch(w.agent, "get_object", { namespace: "slack", kind: "slack.user", selector: { handle: "@ana" } })) as { name: string; title: string };
    expect(byHandle).toMatchObject({ name: "ana", title: "Designer" });
    // A part of a handle or a name names no one, even when one contains it: the near ones are suggested.
    const partial = await errorOf(dispatch(w.agent, "get_object", { namespace: "slack", kind: "slack.user", selector: { handle: "bo" } }));
    expect(partial.code).toBe("not_found");
    expect(JSON.stringify(partial.details.did_you_mean)).toContain("bobby");
    const one = await errorOf(dispatch(w.agent, "get_object", { namespace: "slack", kind: "slack.channel", selector: { name: "laun" } }));
    expect(one.code).toBe("not_found");
    expect((one.details.did_you_mean as { label: string }[]).map((c) => c.label)).toEqual(["#launch"]);
    // The workspace is a selector too (with several connected).
    const named = (await dispatch(w.agent, "get_object", { namespace: "slack", kind: "slack.channel", selector: { name: "launch", account: "Demo workspace" } })) as { ref: string };
    expect(named.ref).toBe(`slack:${id}:channel:${CH}`);
  });

  it("two workspaces: a search without an account answers the candidates; naming one works", async () => {
    const w = await world();
    await connect(w, { label: "Demo workspace" });
    await connect(w, { label: "Other workspace" });
    const denied = await errorOf(dispatch(w.agent, "search_objects", { namespace: "slack", kind: "slack.message", query: "mockups" }));
    expect(denied.code).toBe("ambiguous_selector");
    expect((denied.details.choices as { label: string }[]).map((c) => c.label)).toEqual(["Demo workspace", "Other workspace"]);
    const found = (await dispatch(w.agent, "search_objects", { namespace: "slack", kind: "slack.message", query: "mockups", filter: { account: "Other workspace" } })) as Items;
    expect(found.items.length).toBeGreaterThan(0);
  });
});

describe("gate two and Slack's refusals", () => {
  it("missing_scope from Slack becomes a claim upgrade demand naming the claim", async () => {
    const w = await world();
    // Realmgate's record says the files claim is there; Slack's token says otherwise.
    const { id } = await connect(w, { scopes: ["channels:history"] });
    const denied = await errorOf(dispatch(w.agent, "get_object", { ref: `slack:${id}:file:F0MOCK01` }));
    expect(denied.code).toBe("needs_connected_account_consent");
    expect(denied.details).toMatchObject({ reason: "claim_upgrade_required", missing_claims: ["slack:files:read"] });
  });

  it("a 429 answers with Retry-After, nothing retried", async () => {
    const w = await world();
    await connect(w, { scopes: [...ALL_SCOPES, "ratelimited"] });
    const err = await errorOf(dispatch(w.agent, "search_objects", { namespace: "slack", kind: "slack.message", query: "mockups" }));
    // provider_unavailable (503) from this tree's session; rate_limited (429) once the provider branch's session is in.
    expect(["provider_unavailable", "rate_limited"]).toContain(err.code);
    expect(err.headers).toMatchObject({ "Retry-After": "30" });
  });

  it("a file link stops working once the grant is revoked, or once the workspace is disconnected", async () => {
    const w = await world();
    const { id } = await connect(w);
    const f1 = (await dispatch(w.agent, "get_object", { ref: `slack:${id}:file:F0MOCK01` })) as FileObj;
    const f2 = (await dispatch(w.agent, "get_object", { ref: `slack:${id}:file:F0MOCK02` })) as FileObj;
    expect((await redeemLiveUrl(w.t.db, f1.download.url, { method: "GET" })).kind).toBe("download");
    await disconnectAccount(w.t.db, w.alice, id);
    const afterDisconnect = await liveGet(new Request(f1.download.url));
    expect(afterDisconnect.status).toBe(403);
    expect(((await afterDisconnect.json()) as { error: { code: string } }).error.code).toBe("forbidden");

    const v = await world();
    const acct = await connect(v);
    const f3 = (await dispatch(v.agent, "get_object", { ref: `slack:${acct.id}:file:F0MOCK03` })) as FileObj;
    await revokeGrant(v.t.db, v.alice, v.grantId, "done");
    const afterRevoke = await errorOf(redeemLiveUrl(v.t.db, f3.download.url, { method: "GET" }));
    expect(afterRevoke.code).toBe("forbidden");
    void f2;
  });

  it("a file host's 429 reaches whoever fetches the link, with Retry-After (not a refusal)", async () => {
    const w = await world();
    const { id } = await connect(w, { scopes: [...ALL_SCOPES, "ratelimited_files"] });
    const f = (await dispatch(w.agent, "get_object", { ref: `slack:${id}:file:F0MOCK01` })) as FileObj;
    const res = await liveGet(new Request(f.download.url));
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("7");
  });

  it("an altered, expired or wrong-method link is refused", async () => {
    const w = await world();
    const { id } = await connect(w);
    const f = (await dispatch(w.agent, "get_object", { ref: `slack:${id}:file:F0MOCK01` })) as FileObj;
    const u = new URL(f.download.url);
    u.searchParams.set("ref", `slack:${id}:file:F0MOCK02`);
    expect((await errorOf(redeemLiveUrl(w.t.db, u, { method: "GET" }))).code).toBe("bad_signature");
    expect((await errorOf(redeemLiveUrl(w.t.db, f.download.url, { method: "PUT" }))).code).toBe("bad_signature");
    expect((await errorOf(redeemLiveUrl(w.t.db, f.download.url, { method: "GET", now: new Date(Date.now() + 16 * 60_000) }))).code).toBe("url_expired");
  });
});

describe("actions", () => {
  it("posts, replies in the thread, reacts (an existing reaction is no error)", async () => {
    const w = await world();
    const { id } = await connect(w);
    const posted = (await dispatch(w.agent, "object_action", { ref: `slack:${id}:channel:${CH}`, action: "post_message", payload: { text: "Готово ✅" } })) as { posted: boolean; ref: string };
    expect(posted.posted).toBe(true);
    expect(parseSlackRef(posted.ref)).toMatchObject({ type: "message", channel: CH });
    expect(posts.at(-1)).toMatchObject({ channel: CH, text: "Готово ✅" });
    const reply = (await dispatch(w.agent, "object_action", { ref: `slack:${id}:message:${CH}:${TS}`, action: "reply_in_thread", payload: { text: "Thanks" } })) as { thread: string };
    expect(reply.thread).toBe(`slack:${id}:message:${CH}:${TS}`);
    expect(posts.at(-1)).toMatchObject({ channel: CH, text: "Thanks", thread_ts: TS });
    const r1 = await dispatch(w.agent, "object_action", { ref: `slack:${id}:message:${CH}:${TS}`, action: "add_reaction", payload: { name: ":tada:" } });
    expect(r1).toMatchObject({ reaction: "tada", added: true });
    const r2 = await dispatch(w.agent, "object_action", { ref: `slack:${id}:message:${CH}:${TS}`, action: "add_reaction", payload: { name: "eyes" } });
    expect(r2).toMatchObject({ added: false, already_reacted: true });
  });

  it("request_upload hands out a PUT slot; the bytes go through Slack's external upload flow", async () => {
    const w = await world();
    const { id, token } = await connect(w);
    const slot = (await dispatch(w.agent, "object_action", { ref: `slack:${id}:channel:${CH}`, action: "request_upload", payload: { filename: "chart.png", comment: "Numbers" } })) as { upload: { method: string; url: string } };
    expect(slot.upload.method).toBe("PUT");
    expect(JSON.stringify(slot)).not.toContain(token);
    const bytes = png(9);
    const res = await livePut(new Request(slot.upload.url, { method: "PUT", body: bytes, headers: { "content-type": "image/png" } }));
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { uploaded: boolean; file: string };
    expect(answer.uploaded).toBe(true);
    const u = uploads.at(-1)!;
    expect(answer.file).toBe(`slack:${id}:file:${u.id}`);
    expect(u.bytes.equals(bytes)).toBe(true);
    expect(u.completed).toMatchObject({ channel_id: CH, initial_comment: "Numbers", files: [{ id: u.id, title: "chart.png" }] });
    // A slot uploads once: a second PUT (even at the same moment) is refused and reaches nothing.
    const once = uploads.length;
    const again = await Promise.all([1, 2].map(() => livePut(new Request(slot.upload.url, { method: "PUT", body: bytes, headers: { "content-type": "image/png" } }))));
    expect(again.map((r) => r.status)).toEqual([403, 403]);
    expect(((await again[0]!.json()) as { error: { message: string } }).error.message).toContain("already used");
    expect(uploads.length).toBe(once);
    // The slot is a PUT slot only; an empty body is refused before Slack is asked.
    expect((await liveGet(new Request(slot.upload.url))).status).toBe(403);
    const before = uploads.length;
    const empty = await livePut(new Request(slot.upload.url, { method: "PUT", body: new Uint8Array(), headers: { "content-type": "image/png" } }));
    expect(empty.status).toBe(400);
    expect(uploads.length).toBe(before);
    // Without the upload claim, the slot is not handed out: the demand names it.
    const v = await world();
    const narrow = await connect(v, { claims: ["slack:read", "slack:files:read"] });
    const denied = await errorOf(dispatch(v.agent, "object_action", { ref: `slack:${narrow.id}:channel:${CH}`, action: "request_upload", payload: { filename: "a.png" } }));
    expect(denied.details).toMatchObject({ reason: "claim_upgrade_required", missing_claims: ["slack:files:write"] });
    // A revoked grant stops a slot handed out before.
    const later = (await dispatch(w.agent, "object_action", { ref: `slack:${id}:channel:${CH}`, action: "request_upload", payload: { filename: "b.png" } })) as { upload: { url: string } };
    await revokeGrant(w.t.db, w.alice, w.grantId, "done");
    expect((await livePut(new Request(later.upload.url, { method: "PUT", body: bytes, headers: { "content-type": "image/png" } }))).status).toBe(403);
    expect(uploads.length).toBe(before);
  });
});

describe("search under a grant scoped to channels", () => {
  it("asks Slack only about those channels: nothing elsewhere is seen, not even a cursor", async () => {
    const w = await world(["provider.about", "object.schema"]);
    const { id } = await connect(w);
    const other = "C0RANDOM01";
    const one = await createGrant(w.t.db, w.alice, { actor_id: w.agent.actorId, namespace: "slack", operations: ["object.search"], resource_scope: { refs: [`slack:${id}:channel:${other}`] }, expires: "1d" });
    searchQueries.length = 0;
    const found = (await dispatch(w.agent, "search_objects", { namespace: "slack", kind: "slack.message", query: "mockups", limit: 1 })) as Items;
    expect(searchQueries).toEqual([`mockups in:<#${other}>`]);
    expect(found.items).toEqual([]);
    expect(found.next_cursor).toBeNull();
    // Two channels: each searched on its own, one page each.
    await revokeGrant(w.t.db, w.alice, one.id, "narrower");
    await createGrant(w.t.db, w.alice, { actor_id: w.agent.actorId, namespace: "slack", operations: ["object.search"], resource_scope: { refs: [`slack:${id}:channel:${other}`, `slack:${id}:channel:${CH}`] }, expires: "1d" });
    searchQueries.length = 0;
    await dispatch(w.agent, "search_objects", { namespace: "slack", kind: "slack.message", query: "mockups" });
    expect(searchQueries.sort()).toEqual([`mockups in:<#${CH}>`, `mockups in:<#${other}>`].sort());
  });
});

describe("the consent page", () => {
  it("says where a post would go and what it would say, by the channel's name, with the grantor's own workspace", async () => {
    const w = await world();
    const { id } = await connect(w);
    const asAlice = { type: "user" as const, userId: w.alice.userId };
    const shown = await inCall(w.t, asAlice, refusingDelivery("slack"), (ctx) =>
      presentRequest(ctx, { operation: "object.action.post_message", ref: `slack:${id}:channel:${CH}`, input: { action: "post_message", payload: { text: "Релиз в пятницу" } } }),
    );
    expect(shown!.title).toBe("Post a message in Slack as you");
    expect(Object.fromEntries(shown!.lines.map((l) => [l.label, l.value]))).toMatchObject({ Channel: expect.stringContaining("#launch"), Message: "Релиз в пятницу" });
    const react = await inCall(w.t, asAlice, refusingDelivery("slack"), (ctx) =>
      presentRequest(ctx, { operation: "object.action.add_reaction", ref: `slack:${id}:message:${CH}:${TS}`, input: { payload: { name: "tada" } } }),
    );
    expect(Object.fromEntries(react!.lines.map((l) => [l.label, l.value]))).toMatchObject({ Message: expect.stringContaining("Макеты"), Reaction: ":tada:" });
    // Someone else's workspace (or a ref alice cannot read) is never named.
    const other = await inCall(w.t, asAlice, refusingDelivery("slack"), (ctx) =>
      presentRequest(ctx, { operation: "object.action.post_message", ref: `slack:${ACC}:channel:${CH}`, input: { payload: { text: "x" } } }),
    );
    expect(other!.lines[0]).toEqual({ label: "Channel", value: "something you cannot see" });
    expect(await inCall(w.t, asAlice, refusingDelivery("slack"), (ctx) => presentRequest(ctx, { operation: "object.get", ref: null, input: {} }))).toBeNull();
  });
});

describe("where the account's token may go", () => {
  it("to the provider's file hosts, never to an API method's path, another host or plain HTTP", () => {
    const on = (apiBaseUrl: string) => ({ provider: { apiBaseUrl } }) as unknown as Parameters<typeof fileHostAllowed>[0];
    const local = on("http://127.0.0.1:4000/api");
    expect(fileHostAllowed(local, new URL("http://127.0.0.1:4000/files-pri/T-F/a.png"))).toBe(true);
    expect(fileHostAllowed(local, new URL("http://127.0.0.1:4000/api/auth.revoke"))).toBe(false);
    expect(fileHostAllowed(local, new URL("http://127.0.0.1:4001/files-pri/T-F/a.png"))).toBe(false);
    const real = on("https://slack.com/api");
    expect(fileHostAllowed(real, new URL("https://files.slack.com/files-pri/T-F/a.png"))).toBe(true);
    expect(fileHostAllowed(real, new URL("https://slack.com/api/auth.revoke"))).toBe(false);
    expect(fileHostAllowed(real, new URL("http://files.slack.com/files-pri/T-F/a.png"))).toBe(false);
    expect(fileHostAllowed(real, new URL("https://files.slack.com.evil.test/x"))).toBe(false);
  });
});
