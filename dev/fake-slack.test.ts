// The local Slack-compatible server (dev/fake-slack.ts) speaks Slack's wire format: the OAuth v2 dance,
// each Web API method with its scope, cursors, search, files behind the token, the upload flow, revocation
// and the rate-limited mode.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { approveAtDevSlack, devSlackControl, SLACK_SEED, startDevSlack, type DevSlack } from "./fake-slack";
import { PNG_SIGNATURE, pngSize } from "./png";
import { slackQuery, type SearchableSlackMessage } from "./slack-query";

const APP = "http://localhost:3999";
const CALLBACK = `${APP}/api/v1/connections/callback`;
const READ = ["channels:read", "channels:history", "groups:read", "groups:history", "search:read", "users:read", "users:read.email"];
const ALL = [...READ, "files:read", "files:write", "chat:write", "reactions:write"];
const S = SLACK_SEED;

let slack: DevSlack;
beforeAll(async () => {
  slack = await startDevSlack({ appUrl: APP });
});
afterAll(async () => {
  await slack?.close();
});

type Answer = { ok: boolean; error?: string; needed?: string; provided?: string; [k: string]: unknown };

/** Call a Web API method as Slack clients do: POST form with the bearer token (or GET with a query). */
async function call(method: string, token: string | null, args: Record<string, string | number | boolean> = {}, how: "form" | "get" | "json" = "form"): Promise<Answer> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const params = new URLSearchParams(Object.entries(args).map(([k, v]) => [k, String(v)]));
  const res =
    how === "get"
      ? await fetch(`${slack.env.REALMGATE_DEVSLACK_API_URL}/${method}?${params}`, { headers })
      : await fetch(`${slack.env.REALMGATE_DEVSLACK_API_URL}/${method}`, {
          method: "POST",
          headers: { ...headers, "content-type": how === "json" ? "application/json; charset=utf-8" : "application/x-www-form-urlencoded" },
          body: how === "json" ? JSON.stringify(args) : params.toString(),
        });
  expect(res.status).toBe(200);
  return (await res.json()) as Answer;
}

function authorizeUrl(scopes: string[], extra: Record<string, string> = {}) {
  const u = new URL(slack.env.REALMGATE_DEVSLACK_AUTHORIZE_URL!);
  u.searchParams.set("client_id", slack.env.REALMGATE_DEVSLACK_CLIENT_ID!);
  u.searchParams.set("user_scope", scopes.join(","));
  u.searchParams.set("redirect_uri", CALLBACK);
  u.searchParams.set("state", "st-123");
  for (const [k, v] of Object.entries(extra)) u.searchParams.set(k, v);
  return u.toString();
}

async function exchange(code: string, opts: { basic?: boolean; secret?: string; redirect?: string; verifier?: string } = {}): Promise<Answer> {
  const id = slack.env.REALMGATE_DEVSLACK_CLIENT_ID!;
  const secret = opts.secret ?? slack.env.REALMGATE_DEVSLACK_CLIENT_SECRET!;
  const body = new URLSearchParams({ code, redirect_uri: opts.redirect ?? CALLBACK, ...(opts.basic ? {} : { client_id: id, client_secret: secret }), ...(opts.verifier ? { code_verifier: opts.verifier } : {}) });
  const res = await fetch(slack.env.REALMGATE_DEVSLACK_TOKEN_URL!, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...(opts.basic ? { authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}` } : {}) },
    body,
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Answer;
}

async function connect(login: string, scopes: string[], team?: string) {
  const back = new URL(await approveAtDevSlack(authorizeUrl(scopes), { login, team }));
  const answer = await exchange(back.searchParams.get("code")!);
  expect(answer.ok).toBe(true);
  return (answer.authed_user as { access_token: string }).access_token;
}

describe("OAuth v2", () => {
  it("the authorize page is a labelled form; Allow redirects with a code that buys a user token in Slack's shape", async () => {
    const page = await fetch(authorizeUrl(["search:read", "channels:history"]));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("<legend>Who are you?</legend>");
    expect(html).toMatch(/<label><input type="radio" name="login" value="alice" checked> Alice Owner \(alice@acme\.test\)<\/label>/);
    expect(html).toContain("> Beta Labs</label>");

    const back = new URL(await approveAtDevSlack(authorizeUrl(["search:read", "channels:history"]), { login: "alice", team: "Acme" }));
    expect(`${back.origin}${back.pathname}`).toBe(CALLBACK);
    expect(back.searchParams.get("state")).toBe("st-123");
    const answer = await exchange(back.searchParams.get("code")!, { basic: true });
    expect(answer).toEqual({
      ok: true,
      app_id: expect.any(String),
      authed_user: { id: S.users.alice.id, scope: "search:read,channels:history", access_token: expect.stringMatching(/^xoxp-/), token_type: "user" },
      team: { id: S.teams.acme.id, name: "Acme" },
      enterprise: null,
      is_enterprise_install: false,
    });
    expect("access_token" in answer).toBe(false); // no bot token
    const token = (answer.authed_user as { access_token: string }).access_token;
    expect(await call("auth.test", token)).toMatchObject({ ok: true, user_id: S.users.alice.id, user: "alice", team_id: S.teams.acme.id, team: "Acme" });
    // Codes are single use.
    expect(await exchange(back.searchParams.get("code")!)).toEqual({ ok: false, error: "invalid_code" });
  });

  it("refuses a wrong secret, redirect URI or client, and a person outside the workspace", async () => {
    const code = () => approveAtDevSlack(authorizeUrl(["search:read"]), { login: "bob" }).then((u) => new URL(u).searchParams.get("code")!);
    expect(await exchange(await code(), { secret: "nope" })).toEqual({ ok: false, error: "bad_client_secret" });
    expect(await exchange(await code(), { redirect: `${APP}/elsewhere` })).toEqual({ ok: false, error: "bad_redirect_uri" });
    expect(await exchange("123.abc")).toEqual({ ok: false, error: "invalid_code" });
    expect((await fetch(authorizeUrl(["search:read"], { client_id: "other" }))).status).toBe(400);
    expect((await fetch(authorizeUrl(["search:read"], { redirect_uri: "http://evil.test/cb" }))).status).toBe(400);
    expect((await fetch(authorizeUrl(["no:such-scope"]))).status).toBe(400);
    await expect(approveAtDevSlack(authorizeUrl(["search:read"]), { login: "bob", team: "Beta Labs" })).rejects.toThrow(/Bob Member is not a member of Beta Labs/);
    const denied = new URL(await approveAtDevSlack(authorizeUrl(["search:read"]), { login: "alice", decline: true }));
    expect(denied.searchParams.get("error")).toBe("access_denied");
    expect(denied.searchParams.get("state")).toBe("st-123");
  });

  it("PKCE: a code whose authorization carried a challenge needs its verifier; codes expire after ten minutes", async () => {
    const verifier = "v".repeat(43);
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const url = authorizeUrl(["search:read"], { code_challenge: challenge, code_challenge_method: "S256" });
    const code = async () => new URL(await approveAtDevSlack(url, { login: "sam" })).searchParams.get("code")!;
    expect(await exchange(await code())).toEqual({ ok: false, error: "invalid_code_verifier" });
    expect(await exchange(await code(), { verifier: "w".repeat(43) })).toEqual({ ok: false, error: "invalid_code_verifier" });
    expect(await exchange(await code(), { verifier })).toMatchObject({ ok: true, authed_user: { id: S.users.sam.id } });
    expect((await fetch(authorizeUrl(["search:read"], { code_challenge: challenge, code_challenge_method: "S512" }))).status).toBe(400);

    const late = await code();
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 11 * 60_000 });
    try {
      expect(await exchange(late, { verifier })).toEqual({ ok: false, error: "invalid_code" });
    } finally {
      vi.useRealTimers();
    }
  });

  it("a person in two workspaces gets one token per workspace; `team` narrows the page; scopes add up", async () => {
    const acme = await connect("alice", ["users:read"], S.teams.acme.id);
    const beta = await connect("alice", ["users:read"], "Beta Labs");
    expect(acme).not.toBe(beta);
    expect(await call("auth.test", beta)).toMatchObject({ ok: true, user_id: S.users.aliceBeta.id, team_id: S.teams.beta.id, team: "Beta Labs" });
    const only = await (await fetch(authorizeUrl(["users:read"], { team: S.teams.beta.id }))).text();
    expect(only).toContain("Beta Labs");
    expect(only).not.toContain("> Acme</label>");
    // Incremental upgrade: the token keeps its old scopes and gains the new ones.
    const back = new URL(await approveAtDevSlack(authorizeUrl(["search:read"]), { login: "alice", team: "Beta Labs" }));
    const upgraded = await exchange(back.searchParams.get("code")!);
    expect((upgraded.authed_user as { scope: string }).scope).toBe("users:read,search:read");
    expect(slack.state.tokenFor("alice", S.teams.beta.id)?.scopes).toEqual(["users:read", "search:read"]);
  });
});

describe("Web API", () => {
  let alice: string;
  let bare: string;
  beforeAll(() => {
    alice = slack.state.issueToken({ user: S.users.alice.id, scopes: ALL });
    bare = slack.state.issueToken({ user: "sam", team: S.teams.acme.id, scopes: ["identity.basic"] });
  });

  it("authentication errors: not_authed, invalid_auth; the token also works as a form or query argument", async () => {
    expect(await call("auth.test", null)).toEqual({ ok: false, error: "not_authed" });
    expect(await call("auth.test", "xoxp-1-2-3-nope")).toEqual({ ok: false, error: "invalid_auth" });
    expect(await call("auth.test", null, { token: alice })).toMatchObject({ ok: true, user_id: S.users.alice.id });
    expect(await call("auth.test", null, { token: alice }, "get")).toMatchObject({ ok: true, user_id: S.users.alice.id });
    expect(await call("no.such", alice)).toEqual({ ok: false, error: "unknown_method" });
  });

  it("each method refuses a token without its scope: missing_scope with needed and provided", async () => {
    const cases: [string, Record<string, string>, string][] = [
      ["conversations.list", {}, "channels:read"],
      ["conversations.info", { channel: S.channels.launch.id }, "channels:read,groups:read,im:read,mpim:read"],
      ["conversations.history", { channel: S.channels.launch.id }, "channels:history,groups:history,mpim:history,im:history"],
      ["conversations.replies", { channel: S.channels.launch.id, ts: S.launchMessage.ts }, "channels:history,groups:history,mpim:history,im:history"],
      ["users.info", { user: S.users.bob.id }, "users:read"],
      ["users.list", {}, "users:read"],
      ["users.lookupByEmail", { email: "bob@acme.test" }, "users:read.email"],
      ["search.messages", { query: "mockups" }, "search:read"],
      ["files.info", { file: S.files[0].id }, "files:read"],
      ["chat.postMessage", { channel: S.channels.launch.id, text: "hi" }, "chat:write,chat:write:user"],
      ["reactions.add", { channel: S.channels.launch.id, timestamp: S.launchMessage.ts, name: "eyes" }, "reactions:write"],
      ["files.getUploadURLExternal", { filename: "a.png", length: "10" }, "files:write"],
      ["files.completeUploadExternal", { files: '[{"id":"F1"}]' }, "files:write"],
    ];
    for (const [method, args, needed] of cases) expect(await call(method, bare, args), method).toEqual({ ok: false, error: "missing_scope", needed, provided: "identity.basic" });
    // A private channel needs groups:*, even with the channels:* scopes.
    const publicOnly = slack.state.issueToken({ user: "bob", scopes: ["channels:read", "channels:history"] });
    expect(await call("conversations.history", publicOnly, { channel: S.channels.design.id })).toMatchObject({ ok: false, error: "missing_scope", needed: "groups:history" });
    expect(await call("conversations.list", publicOnly, { types: "public_channel,private_channel" })).toMatchObject({ ok: false, error: "missing_scope", needed: "groups:read" });
  });

  it("conversations.list: types, exclude_archived, cursors; conversations.info", async () => {
    const pub = await call("conversations.list", alice);
    expect((pub.channels as { name: string }[]).map((c) => c.name)).toEqual(["general", "launch", "old-launch"]);
    expect(pub.response_metadata).toEqual({ next_cursor: "" });
    const both = await call("conversations.list", alice, { types: "public_channel,private_channel", exclude_archived: true });
    expect((both.channels as { name: string; is_private: boolean }[]).map((c) => [c.name, c.is_private])).toEqual([["design", true], ["general", false], ["launch", false]]);
    const first = await call("conversations.list", alice, { limit: 2 });
    const cursor = (first.response_metadata as { next_cursor: string }).next_cursor;
    expect(cursor).not.toBe("");
    const second = await call("conversations.list", alice, { limit: 2, cursor });
    expect((second.channels as { name: string }[]).map((c) => c.name)).toEqual(["old-launch"]);
    expect(await call("conversations.list", alice, { cursor: "garbage" })).toEqual({ ok: false, error: "invalid_cursor" });
    // sam is not in the private channel: he does not see it.
    const sam = slack.state.issueToken({ user: "sam", scopes: READ });
    expect(await call("conversations.info", sam, { channel: S.channels.design.id })).toEqual({ ok: false, error: "channel_not_found" });
    expect(await call("conversations.info", alice, { channel: S.channels.launch.id })).toMatchObject({ ok: true, channel: { id: S.channels.launch.id, name: "launch", is_channel: true, is_private: false, is_member: true } });
    expect(await call("conversations.info", alice, { channel: "C0NOPE" })).toEqual({ ok: false, error: "channel_not_found" });
    // A workspace's channels are not another's.
    const beta = slack.state.issueToken({ user: S.users.aliceBeta.id, scopes: READ });
    expect(await call("conversations.info", beta, { channel: S.channels.launch.id })).toEqual({ ok: false, error: "channel_not_found" });
  });

  it("conversations.history: newest first, the files of a message, latest/oldest/inclusive, and cursors over more than a page", async () => {
    const launch = await call("conversations.history", alice, { channel: S.channels.launch.id }, "get");
    const msgs = launch.messages as { ts: string; text: string; user: string; files?: { id: string; url_private: string }[]; reply_count?: number; thread_ts?: string }[];
    expect(msgs.map((m) => m.ts)).toEqual([...msgs.map((m) => m.ts)].sort().reverse());
    expect(msgs.some((m) => m.ts === S.launchReply.ts)).toBe(false); // replies stay in their thread
    const mockups = msgs.find((m) => m.ts === S.launchMessage.ts)!;
    expect(mockups).toMatchObject({ type: "message", user: S.users.bob.id, text: S.launchMessage.text, reply_count: 1, thread_ts: S.launchMessage.ts });
    expect(mockups.files!.map((f) => f.id)).toEqual(S.files.map((f) => f.id));
    expect(launch.has_more).toBe(false);
    expect(launch.response_metadata).toBeUndefined();

    const window = await call("conversations.history", alice, { channel: S.channels.launch.id, latest: S.launchMessage.ts, oldest: S.launchMessage.ts, inclusive: true, limit: 1 });
    expect((window.messages as { ts: string }[]).map((m) => m.ts)).toEqual([S.launchMessage.ts]);
    const exclusive = await call("conversations.history", alice, { channel: S.channels.launch.id, latest: S.launchMessage.ts, oldest: S.launchMessage.ts });
    expect(exclusive.messages).toEqual([]);

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await call("conversations.history", alice, { channel: S.channels.general.id, limit: 5, ...(cursor ? { cursor } : {}) });
      const batch = (page.messages as { ts: string }[]).map((m) => m.ts);
      expect(batch.length).toBeLessThanOrEqual(5);
      seen.push(...batch);
      cursor = (page.response_metadata as { next_cursor?: string } | undefined)?.next_cursor;
      expect(page.has_more).toBe(!!cursor);
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(S.generalMessageCount);
    expect(new Set(seen).size).toBe(S.generalMessageCount);
    expect(seen).toEqual([...seen].sort().reverse());
    expect(await call("conversations.history", alice, { channel: "C0NOPE" })).toEqual({ ok: false, error: "channel_not_found" });
    expect(await call("conversations.history", alice, {})).toMatchObject({ ok: false, error: "invalid_arguments" });
  });

  it("conversations.replies: the parent then its replies", async () => {
    const thread = await call("conversations.replies", alice, { channel: S.channels.launch.id, ts: S.launchMessage.ts });
    expect((thread.messages as { ts: string; thread_ts: string }[]).map((m) => [m.ts, m.thread_ts])).toEqual([
      [S.launchMessage.ts, S.launchMessage.ts],
      [S.launchReply.ts, S.launchMessage.ts],
    ]);
    expect((thread.messages as { parent_user_id?: string }[])[1]!.parent_user_id).toBe(S.users.bob.id);
    expect(await call("conversations.replies", alice, { channel: S.channels.launch.id, ts: "1.000001" })).toEqual({ ok: false, error: "thread_not_found" });
  });

  it("users.info, users.list and users.lookupByEmail; email only with users:read.email", async () => {
    expect(await call("users.info", alice, { user: S.users.bob.id })).toMatchObject({ ok: true, user: { id: S.users.bob.id, name: "bob", real_name: "Bob Member", team_id: S.teams.acme.id, profile: { email: "bob@acme.test" } } });
    const noEmail = slack.state.issueToken({ user: "bob", scopes: ["users:read"] });
    const info = await call("users.info", noEmail, { user: S.users.alice.id });
    expect((info.user as { profile: Record<string, unknown> }).profile.email).toBeUndefined();
    expect(await call("users.info", alice, { user: S.users.aliceBeta.id })).toEqual({ ok: false, error: "user_not_found" });
    const list = await call("users.list", alice, { limit: 2 });
    expect((list.members as { name: string }[]).map((u) => u.name)).toEqual(["alice", "bob"]);
    const rest = await call("users.list", alice, { limit: 2, cursor: (list.response_metadata as { next_cursor: string }).next_cursor });
    expect((rest.members as { name: string }[]).map((u) => u.name)).toEqual(["sam"]);
    expect(await call("users.lookupByEmail", alice, { email: "SAM@acme.test" })).toMatchObject({ ok: true, user: { id: S.users.sam.id } });
    expect(await call("users.lookupByEmail", alice, { email: "nobody@acme.test" })).toEqual({ ok: false, error: "users_not_found" });
  });

  it("search.messages: Cyrillic words, quoted phrases, in:, from:, has:, dates; Slack's paging and cursors", async () => {
    const search = async (query: string, extra: Record<string, string | number> = {}) => {
      const a = await call("search.messages", alice, { query, ...extra });
      expect(a.ok).toBe(true);
      return a as Answer & { query: string; messages: { total: number; matches: { ts: string; text: string; user: string; username: string; channel: { id: string; name: string }; permalink: string; type: string; files?: { id: string }[] }[]; pagination: Record<string, number>; paging: Record<string, number> } };
    };
    const cyr = await search("макеты in:#launch");
    expect(cyr.query).toBe("макеты in:#launch");
    expect(cyr.messages.total).toBe(1);
    expect(cyr.messages.matches[0]).toMatchObject({ type: "message", ts: S.launchMessage.ts, text: S.launchMessage.text, user: S.users.bob.id, username: "bob", channel: { id: S.channels.launch.id, name: "launch" } });
    expect(cyr.messages.matches[0]!.files!.map((f) => f.id)).toEqual(S.files.map((f) => f.id));
    expect(cyr.messages.matches[0]!.permalink).toMatch(new RegExp(`/archives/${S.channels.launch.id}/p${S.launchMessage.ts.replace(".", "")}$`));
    expect((await fetch(cyr.messages.matches[0]!.permalink)).status).toBe(200);
    // Case-insensitive in any script; a short inflection finds the word.
    expect((await search("МАКЕТ")).messages.total).toBe(1);
    expect((await search("ГОТОВЫ")).messages.matches.map((m) => m.ts)).toEqual([S.launchMessage.ts]);
    expect((await search('"the mockups are ready" in:<#C0LAUNCH01|launch>')).messages.total).toBe(1);
    expect((await search('"mockups the"')).messages.total).toBe(0);
    expect((await search("mockups in:#launch")).messages.total).toBe(2); // "Mockups due tomorrow" too
    expect((await search("mockups from:@bob")).messages.matches.map((m) => m.ts)).toEqual([S.launchMessage.ts]);
    expect((await search(`mockups from:<@${S.users.alice.id}>`)).messages.total).toBe(1);
    expect((await search("mockups -from:@alice")).messages.total).toBe(1);
    expect((await search("has:file")).messages.matches.map((m) => m.ts)).toEqual([S.launchMessage.ts]);
    expect((await search("in:#launch has:link")).messages.matches.map((m) => m.text)).toEqual(["Press kit draft is here: https://acme.test/press-kit"]);
    expect((await search("has:reaction in:launch")).messages.total).toBe(1);
    expect((await search("has::thumbsup:")).messages.total).toBe(1);
    expect((await search("отлично is:thread")).messages.matches.map((m) => m.ts)).toEqual([S.launchReply.ts]);
    expect((await search("in:#launch on:2026-11-24")).messages.total).toBe(3);
    expect((await search("in:#launch before:2026-11-24")).messages.total).toBe(1);
    expect((await search("in:#launch after:2026-11-23")).messages.total).toBe(3);
    expect((await search("in:#launch during:2026-11")).messages.total).toBe(4);
    expect((await search("in:#launch during:2025")).messages.total).toBe(0);
    // Private channels only for their members, never another workspace.
    expect((await search("onboarding")).messages.total).toBe(1);
    const sam = slack.state.issueToken({ user: "sam", scopes: ["search:read"] });
    expect(((await call("search.messages", sam, { query: "onboarding" })).messages as { total: number }).total).toBe(0);
    expect((await search("experiments")).messages.total).toBe(0);

    const pageTwo = await search("in:#general", { count: 5, page: 2, sort: "timestamp" });
    expect(pageTwo.messages.paging).toEqual({ count: 5, total: S.generalMessageCount, page: 2, pages: 3 });
    expect(pageTwo.messages.pagination).toEqual({ total_count: S.generalMessageCount, page: 2, per_page: 5, page_count: 3, first: 6, last: 10 });
    const seen: string[] = [];
    let cursor = "*";
    while (cursor) {
      const p = await search("in:#general", { count: 6, cursor, sort: "timestamp", sort_dir: "asc" });
      seen.push(...p.messages.matches.map((m) => m.ts));
      cursor = (p.response_metadata as { next_cursor: string }).next_cursor;
    }
    expect(seen).toHaveLength(S.generalMessageCount);
    expect(seen).toEqual([...seen].sort());
    expect(await call("search.messages", alice, {})).toEqual({ ok: false, error: "no_query" });
  });

  it("files.info and the bytes at url_private: three distinct PNGs behind the token; without it, Slack's sign-in redirect", async () => {
    const seen = new Set<string>();
    for (const f of S.files) {
      const info = await call("files.info", alice, { file: f.id });
      const file = info.file as { id: string; name: string; title: string; mimetype: string; filetype: string; size: number; url_private: string; url_private_download: string; channels: string[] };
      expect(file).toMatchObject({ id: f.id, name: f.name, mimetype: "image/png", filetype: "png", channels: [S.channels.launch.id] });
      const res = await fetch(file.url_private, { headers: { authorization: `Bearer ${alice}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/png");
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(bytes.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
      expect(pngSize(bytes)).toEqual({ width: 64, height: 64 });
      expect(bytes.length).toBe(file.size);
      seen.add(bytes.toString("base64"));
      const dl = await fetch(file.url_private_download, { headers: { authorization: `Bearer ${alice}` } });
      expect(dl.headers.get("content-disposition")).toContain(f.name);
      const anonymous = await fetch(file.url_private, { redirect: "manual" });
      expect(anonymous.status).toBe(302);
      expect(anonymous.headers.get("location")).toMatch(/\/signin\?redir=/);
      expect((await fetch(file.url_private, { redirect: "manual", headers: { authorization: "Bearer xoxp-forged" } })).status).toBe(302);
    }
    expect(seen.size).toBe(3);
    const noFiles = slack.state.issueToken({ user: "bob", scopes: ["search:read"] });
    expect((await fetch(`${slack.url}/files-pri/${S.teams.acme.id}-${S.files[0].id}/${S.files[0].name}`, { headers: { authorization: `Bearer ${noFiles}` } })).status).toBe(403);
    const beta = slack.state.issueToken({ user: S.users.aliceBeta.id, scopes: ["files:read"] });
    expect(await call("files.info", beta, { file: S.files[0].id })).toEqual({ ok: false, error: "file_not_found" });
    expect(await call("files.info", alice, { file: "F0NOPE" })).toEqual({ ok: false, error: "file_not_found" });
  });

  it("chat.postMessage and reactions.add", async () => {
    const posted = await call("chat.postMessage", alice, { channel: S.channels.launch.id, text: "Ship it 🚀" }, "json");
    expect(posted).toMatchObject({ ok: true, channel: S.channels.launch.id, ts: expect.stringMatching(/^\d{10}\.\d{6}$/), message: { type: "message", text: "Ship it 🚀", user: S.users.alice.id } });
    const reply = await call("chat.postMessage", alice, { channel: "#launch", text: "in the thread", thread_ts: S.launchMessage.ts });
    expect(reply).toMatchObject({ ok: true, channel: S.channels.launch.id, message: { thread_ts: S.launchMessage.ts } });
    expect(slack.state.posted.map((p) => [p.text, p.threadTs])).toEqual([
      ["Ship it 🚀", null],
      ["in the thread", S.launchMessage.ts],
    ]);
    expect(await call("chat.postMessage", alice, { channel: S.channels.launch.id })).toEqual({ ok: false, error: "no_text" });
    expect(await call("chat.postMessage", alice, { channel: S.channels.oldLaunch.id, text: "x" })).toEqual({ ok: false, error: "is_archived" });
    expect(await call("chat.postMessage", alice, { channel: S.channels.launch.id, text: "x", thread_ts: "1.000001" })).toEqual({ ok: false, error: "invalid_thread_ts" });
    // A JSON body must carry its token in the header.
    expect(await call("chat.postMessage", null, { token: alice, channel: S.channels.launch.id, text: "x" }, "json")).toEqual({ ok: false, error: "not_authed" });

    expect(await call("reactions.add", alice, { channel: S.channels.launch.id, timestamp: S.launchMessage.ts, name: ":eyes:" })).toEqual({ ok: true });
    expect(await call("reactions.add", alice, { channel: S.channels.launch.id, timestamp: S.launchMessage.ts, name: "eyes" })).toEqual({ ok: false, error: "already_reacted" });
    expect(await call("reactions.add", alice, { channel: S.channels.launch.id, timestamp: S.launchMessage.ts, name: "tada" })).toEqual({ ok: false, error: "already_reacted" });
    expect(await call("reactions.add", alice, { channel: S.channels.launch.id, timestamp: "1.000001", name: "eyes" })).toEqual({ ok: false, error: "message_not_found" });
    expect(slack.state.reactions).toEqual([{ channel: S.channels.launch.id, ts: S.launchMessage.ts, name: "eyes", user: S.users.alice.id }]);
  });

  it("the external upload flow: an upload URL, the bytes (raw or multipart), completion shares the file in a thread", async () => {
    const bytes = Buffer.from("hello, slack");
    const slot = await call("files.getUploadURLExternal", alice, { filename: "hello.txt", length: bytes.length });
    expect(slot).toMatchObject({ ok: true, upload_url: expect.stringContaining(`${slack.url}/upload/v1/`), file_id: expect.stringMatching(/^F/) });
    const up = await fetch(slot.upload_url as string, { method: "POST", body: bytes });
    expect(up.status).toBe(200);
    expect(await up.text()).toBe(`OK - ${bytes.length}`);
    const done = await call("files.completeUploadExternal", alice, { files: JSON.stringify([{ id: slot.file_id, title: "Hello" }]), channel_id: S.channels.launch.id, initial_comment: "here it is", thread_ts: S.launchMessage.ts });
    expect(done).toMatchObject({ ok: true, files: [{ id: slot.file_id, title: "Hello", name: "hello.txt", mimetype: "text/plain" }] });
    expect(slack.state.posted.at(-1)).toMatchObject({ channel: S.channels.launch.id, text: "here it is", threadTs: S.launchMessage.ts, files: [slot.file_id] });
    expect(slack.state.fileBytes(slot.file_id as string)?.toString()).toBe("hello, slack");
    const info = await call("files.info", alice, { file: slot.file_id as string });
    const dl = await fetch((info.file as { url_private: string }).url_private, { headers: { authorization: `Bearer ${alice}` } });
    expect(await dl.text()).toBe("hello, slack");
    // Completing twice, or a file never uploaded, is file_not_found.
    expect(await call("files.completeUploadExternal", alice, { files: JSON.stringify([{ id: slot.file_id }]) })).toEqual({ ok: false, error: "file_not_found" });
    const empty = await call("files.getUploadURLExternal", alice, { filename: "x.png", length: 5 });
    expect(await call("files.completeUploadExternal", alice, { files: JSON.stringify([{ id: empty.file_id }]) })).toEqual({ ok: false, error: "file_not_found" });
    expect(await call("files.getUploadURLExternal", alice, { filename: "x.png" })).toMatchObject({ ok: false, error: "invalid_arguments" });

    const form = new FormData();
    form.set("file", new Blob([new Uint8Array([1, 2, 3])]), "three.bin");
    const slot2 = await call("files.getUploadURLExternal", alice, { filename: "three.bin", length: 3 });
    expect((await fetch(slot2.upload_url as string, { method: "POST", body: form })).status).toBe(200);
    expect([...(slack.state.fileBytes(slot2.file_id as string) ?? [])]).toEqual([]); // not a file until completed
    expect(await call("files.completeUploadExternal", alice, { files: [{ id: slot2.file_id }] } as unknown as Record<string, string>, "json")).toMatchObject({ ok: true });
    expect([...slack.state.fileBytes(slot2.file_id as string)!]).toEqual([1, 2, 3]);
  });

  it("a deactivated user's token answers account_inactive", async () => {
    const bob = slack.state.issueToken({ user: "bob", scopes: READ });
    slack.state.deactivate(S.users.bob.id);
    try {
      expect(await call("auth.test", bob)).toEqual({ ok: false, error: "account_inactive" });
    } finally {
      slack.state.reactivate(S.users.bob.id);
    }
    expect(await call("auth.test", bob)).toMatchObject({ ok: true });
  });

  it("ratelimited mode: HTTP 429 with Retry-After on every Web API call", async () => {
    slack.setMode("ratelimited", { retryAfter: 7 });
    try {
      for (const method of ["auth.test", "search.messages", "conversations.history"]) {
        const res = await fetch(`${slack.env.REALMGATE_DEVSLACK_API_URL}/${method}`, { method: "POST", headers: { authorization: `Bearer ${alice}` } });
        expect(res.status).toBe(429);
        expect(res.headers.get("retry-after")).toBe("7");
        expect(await res.json()).toEqual({ ok: false, error: "ratelimited" });
      }
      expect(slack.state.requests.at(-1)).toMatchObject({ method: "conversations.history", status: 429, error: "ratelimited" });
    } finally {
      slack.setMode("normal");
    }
    expect(await call("auth.test", alice)).toMatchObject({ ok: true });
    // Only some methods, when named.
    slack.setMode("ratelimited", { retryAfter: 2, methods: ["search.messages"] });
    try {
      expect(await call("auth.test", alice)).toMatchObject({ ok: true });
      const res = await fetch(`${slack.env.REALMGATE_DEVSLACK_API_URL}/search.messages?query=x`, { headers: { authorization: `Bearer ${alice}` } });
      expect([res.status, res.headers.get("retry-after")]).toEqual([429, "2"]);
    } finally {
      slack.setMode("normal");
    }
  });

  it("a token whose scopes were narrowed answers missing_scope, and the auth.test url is the workspace's page", async () => {
    const t = slack.state.issueToken({ user: "sam", scopes: ["search:read", "files:read"] });
    slack.state.setScopes(t, ["search:read"]);
    expect(await call("files.info", t, { file: S.files[0].id })).toEqual({ ok: false, error: "missing_scope", needed: "files:read", provided: "search:read" });
    const home = await fetch((await call("auth.test", t)).url as string);
    expect(home.status).toBe(200);
    expect(await home.text()).toContain("#launch");
  });

  it("auth.revoke: revoked:true, then token_revoked everywhere, files included", async () => {
    const token = await connect("bob", ["files:read", "search:read"]);
    expect(await call("auth.revoke", token, { test: true })).toEqual({ ok: true, revoked: false });
    expect(await call("auth.revoke", token)).toEqual({ ok: true, revoked: true });
    expect(await call("auth.test", token)).toEqual({ ok: false, error: "token_revoked" });
    expect(slack.state.revoked).toContain(token);
    expect(slack.state.tokenFor("bob")).toBeNull();
    const file = `${slack.url}/files-pri/${S.teams.acme.id}-${S.files[0].id}/${S.files[0].name}`;
    expect((await fetch(file, { redirect: "manual", headers: { authorization: `Bearer ${token}` } })).status).toBe(302);
    // Authorizing again mints a new token.
    const again = await connect("bob", ["search:read"]);
    expect(again).not.toBe(token);
    expect(await call("auth.test", again)).toMatchObject({ ok: true });
  });
});

describe("the test hooks over HTTP (for tests in another process)", () => {
  it("need the client secret; switch modes, narrow scopes, deactivate, mint tokens and show the state", async () => {
    expect((await fetch(`${slack.url}/_dev/state`)).status).toBe(401);
    expect((await fetch(`${slack.url}/_dev/state`, { headers: { authorization: "Bearer wrong" } })).status).toBe(401);
    const control = devSlackControl(slack.env);
    const token = await control.issueToken("bob", ["search:read", "files:read"], "Acme");
    expect(await call("auth.test", token)).toMatchObject({ ok: true, user_id: S.users.bob.id });
    await control.setScopes(token, ["files:read"]);
    expect(await call("search.messages", token, { query: "x" })).toMatchObject({ ok: false, error: "missing_scope", needed: "search:read", provided: "files:read" });
    await control.setMode("ratelimited", { retryAfter: 3, methods: ["auth.test"] });
    const res = await fetch(`${slack.env.REALMGATE_DEVSLACK_API_URL}/auth.test`, { headers: { authorization: `Bearer ${token}` } });
    expect([res.status, res.headers.get("retry-after")]).toEqual([429, "3"]);
    expect((await control.state()).mode).toBe("ratelimited");
    await control.setMode("normal");
    await control.deactivate(S.users.bob.id);
    expect(await call("auth.test", token)).toEqual({ ok: false, error: "account_inactive" });
    await control.reactivate(S.users.bob.id);
    const snapshot = await control.state();
    expect(snapshot.mode).toBe("normal");
    expect(snapshot.tokens.find((t) => t.token === token)).toMatchObject({ user: S.users.bob.id, team: S.teams.acme.id, scopes: ["files:read"], via: "test", revoked: false });
    expect(snapshot.requests.at(-1)).toMatchObject({ method: "auth.test", error: "account_inactive" });
    await expect(control.setMode("sideways" as "normal")).rejects.toThrow(/400/);
  });
});

describe("the query language alone", () => {
  const msg = (text: string, extra: Partial<SearchableSlackMessage> = {}): SearchableSlackMessage => ({ text, ts: "1795512600.000100", channel: { id: "C1", name: "launch" }, user: { id: "U1", name: "bob" }, fileNames: [], reactions: [], inThread: false, ...extra });
  it("matches words, phrases, wildcards and exclusions in any case and script; unreadable modifiers are words", () => {
    const m = msg("Ёлка и МАКЕТЫ — the Mockups are ready");
    expect(slackQuery("ёлка").matches(m)).toBe(true);
    expect(slackQuery("макеты mockups").matches(m)).toBe(true);
    expect(slackQuery("макеты banana").matches(m)).toBe(false);
    expect(slackQuery("mock*").matches(m)).toBe(true);
    expect(slackQuery("mo").matches(m)).toBe(false);
    expect(slackQuery("“mockups are”").matches(m)).toBe(true);
    expect(slackQuery('"are mockups"').matches(m)).toBe(false);
    expect(slackQuery("-ready").matches(m)).toBe(false);
    expect(slackQuery("before:soon").matches(msg("before soon"))).toBe(true);
    expect(slackQuery('"unclosed mockups').matches(m)).toBe(false);
    expect(slackQuery("during:november", { now: Date.parse("2026-12-01T00:00:00Z") }).matches(m)).toBe(true);
    expect(slackQuery("during:december", { now: Date.parse("2026-12-01T00:00:00Z") }).matches(m)).toBe(false);
    expect(slackQuery("mockups").score(m)).toBe(1);
  });
});
