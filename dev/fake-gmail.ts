// Development fixture: a local server speaking the subset of the Gmail REST API the mail realm uses, with
// an in-memory mailbox per account searched with the part of Gmail's query language the realm documents
// (dev/gmail-query.ts), behind a local OpenID Connect issuer (dev/oidc-issuer.ts) that grants Gmail
// scopes. Tokens are checked against that issuer and every endpoint enforces Gmail's scopes,
// so `npm run dev` and the tests run the real OAuth flow. Faults (delay, status) can be injected.
// Nothing under lib/ knows this exists: the app sees one more provider configured from the environment.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gmailQueryMatcher, type SearchableMessage } from "./gmail-query";
import { demoIssuerAccounts, startOidcIssuer, type IssuerAccount } from "./oidc-issuer";

const SCOPE = {
  readonly: "https://www.googleapis.com/auth/gmail.readonly",
  send: "https://www.googleapis.com/auth/gmail.send",
  compose: "https://www.googleapis.com/auth/gmail.compose",
  modify: "https://www.googleapis.com/auth/gmail.modify",
  full: "https://mail.google.com/",
} as const;
export const gmailScopeList = Object.values(SCOPE);

/** Which scopes open which endpoints (as Google documents them). */
const NEEDS = {
  read: [SCOPE.readonly, SCOPE.modify, SCOPE.full],
  send: [SCOPE.send, SCOPE.compose, SCOPE.modify, SCOPE.full],
  modify: [SCOPE.modify, SCOPE.full],
};

type Label = { id: string; name: string; type: "system" | "user" };
type Attachment = { id: string; filename: string; mimeType: string; data: Buffer };
type Message = {
  id: string;
  threadId: string;
  labelIds: Set<string>;
  internalDate: number;
  headers: { name: string; value: string }[];
  text: string;
  attachments: Attachment[];
};
type Mailbox = { email: string; name: string; messages: Message[]; labels: Label[]; next: number };

export type TokenInfo = { sub: string; scopes: Set<string> };
export type Faults = {
  /** Wait this long before answering (the request is still carried out afterwards, as a slow server would). */
  delayMs: number;
  /** Answer only once this settles (the request is still carried out afterwards): a test decides when a slow server answers. */
  hold: Promise<unknown> | null;
  /** Answer with this status instead of serving the request. */
  status: number | null;
  /** Only requests whose `METHOD path` matches are affected (all when null). */
  match: RegExp | null;
};

export type FakeGmail = {
  url: string;
  faults: Faults;
  /** Count of requests per `METHOD /path`, to check nothing was resent. */
  calls: Map<string, number>;
  mailbox: (sub: string) => { email: string; messages: { id: string; threadId: string; subject: string; labelIds: string[]; to: string }[] };
  close: () => Promise<void>;
};

const SYSTEM_LABELS = ["INBOX", "SENT", "UNREAD", "STARRED", "IMPORTANT", "TRASH", "SPAM", "DRAFT", "CATEGORY_PERSONAL", "CATEGORY_UPDATES"];

function header(m: Message, name: string): string {
  return m.headers.find((h) => h.name.toLowerCase() === name.toLowerCase())?.value ?? "";
}

function seedMailbox(email: string, name: string): Mailbox {
  const box: Mailbox = {
    email,
    name,
    messages: [],
    labels: [...SYSTEM_LABELS.map((id) => ({ id, name: id, type: "system" as const })), { id: "Label_1", name: "Travel", type: "user" }, { id: "Label_2", name: "Receipts", type: "user" }],
    next: 1,
  };
  const day = 86_400_000;
  const now = Date.now();
  const add = (m: { from: string; to?: string; subject: string; text: string; labels: string[]; ago: number; thread?: string; attachments?: Omit<Attachment, "id">[] }) => {
    const id = newMessageId(box);
    const threadId = m.thread ?? id;
    box.messages.push({
      id,
      threadId,
      labelIds: new Set(m.labels),
      internalDate: now - m.ago,
      headers: [
        { name: "From", value: m.from },
        { name: "To", value: m.to ?? `${name} <${email}>` },
        { name: "Subject", value: m.subject },
        { name: "Date", value: new Date(now - m.ago).toUTCString() },
        { name: "Message-ID", value: `<${id}@mail.local>` },
      ],
      text: m.text,
      attachments: (m.attachments ?? []).map((a, i) => ({ ...a, id: `att_${id}_${i}` })),
    });
    return { id, threadId };
  };
  const q3 = add({
    from: "Dana Ortiz <dana@northwind.test>",
    subject: "Q3 planning — agenda draft",
    text: "Hi! Here is a first draft of the Q3 planning agenda: 1) review of Q2 numbers, 2) hiring plan, 3) the Lisbon offsite. Could you add anything I missed by Thursday?",
    labels: ["INBOX", "UNREAD", "IMPORTANT", "CATEGORY_PERSONAL"],
    ago: 2 * day,
  });
  add({
    from: `${name} <${email}>`,
    to: "Dana Ortiz <dana@northwind.test>",
    subject: "Re: Q3 planning — agenda draft",
    text: "Thanks Dana — looks good. Let's add 15 minutes on the support backlog.",
    labels: ["SENT"],
    ago: 1 * day,
    thread: q3.threadId,
  });
  add({
    from: "CloudCo Billing <billing@cloudco.test>",
    subject: "Your invoice for September",
    text: "Your invoice for September is attached. Amount due: 240.00 EUR, payable within 30 days.",
    labels: ["INBOX", "CATEGORY_UPDATES", "Label_2"],
    ago: 5 * day,
    attachments: [{ filename: "invoice-september.csv", mimeType: "text/csv", data: Buffer.from("item,amount\nCompute,180.00\nStorage,60.00\ntotal,240.00\n") }],
  });
  add({
    from: "Lee Park <lee@acme.test>",
    subject: "Lunch on Friday?",
    text: "Are you free for lunch on Friday? The new ramen place opened next to the office.",
    labels: ["INBOX", "UNREAD", "STARRED", "CATEGORY_PERSONAL"],
    ago: 3 * 3_600_000,
  });
  add({
    from: "Travel desk <travel@acme.test>",
    subject: "Itinerary: Lisbon offsite",
    text: "Your itinerary for the Lisbon offsite is attached: flights on the 14th, hotel near Praça do Comércio.",
    labels: ["INBOX", "Label_1"],
    ago: 7 * day,
    attachments: [{ filename: "itinerary.txt", mimeType: "text/plain", data: Buffer.from("14th 08:10 departure, 11:05 arrival. Hotel: Rua Augusta 1.\n") }],
  });
  add({
    from: "CloudCo Billing <billing@cloudco.test>",
    subject: "Your card on file expires soon",
    text: "The card you pay CloudCo with ends in 4242 and expires next month. Update it to keep your billing running.",
    labels: ["INBOX", "CATEGORY_UPDATES"],
    ago: 12 * day,
  });
  return box;
}

function newMessageId(box: Mailbox): string {
  return `18c${(0x1000000 + box.next++).toString(16)}${randomBytes(4).toString("hex")}`;
}

/** The message as the query matcher (dev/gmail-query.ts) sees it, its labels by id and name. */
function searchable(box: Mailbox, m: Message): SearchableMessage {
  return {
    from: header(m, "From"),
    to: header(m, "To"),
    cc: header(m, "Cc"),
    subject: header(m, "Subject"),
    body: m.text,
    attachmentNames: m.attachments.map((a) => a.filename),
    labels: [...m.labelIds].map((id) => ({ id, name: box.labels.find((l) => l.id === id)?.name ?? id })),
    internalDate: m.internalDate,
  };
}

// --- resources -----------------------------------------------------------------------------------

const b64url = (b: Buffer | string) => Buffer.from(b).toString("base64url");
const snippet = (m: Message) => m.text.slice(0, 120);

function messageResource(m: Message, format: string, metadataHeaders: string[]) {
  const base = { id: m.id, threadId: m.threadId, labelIds: [...m.labelIds], snippet: snippet(m), internalDate: String(m.internalDate), historyId: String(m.internalDate), sizeEstimate: m.text.length + 400 };
  if (format === "minimal") return base;
  const headers = format === "metadata" && metadataHeaders.length ? m.headers.filter((h) => metadataHeaders.some((n) => n.toLowerCase() === h.name.toLowerCase())) : m.headers;
  if (format === "metadata") return { ...base, payload: { mimeType: m.attachments.length ? "multipart/mixed" : "text/plain", headers } };
  const textPart = { partId: m.attachments.length ? "0" : "", mimeType: "text/plain", filename: "", headers: [{ name: "Content-Type", value: "text/plain; charset=UTF-8" }], body: { size: Buffer.byteLength(m.text), data: b64url(m.text) } };
  if (!m.attachments.length) return { ...base, payload: { ...textPart, headers } };
  return {
    ...base,
    payload: {
      partId: "",
      mimeType: "multipart/mixed",
      filename: "",
      headers,
      body: { size: 0 },
      parts: [
        textPart,
        ...m.attachments.map((a, i) => ({ partId: String(i + 1), mimeType: a.mimeType, filename: a.filename, headers: [{ name: "Content-Type", value: a.mimeType }], body: { attachmentId: a.id, size: a.data.length } })),
      ],
    },
  };
}

/** A minimal RFC 2822 reader: headers until the blank line, then the body (as the realm writes it). */
function parseRaw(raw: string): { headers: { name: string; value: string }[]; text: string } {
  const text = Buffer.from(raw, "base64url").toString("utf8");
  const split = text.search(/\r?\n\r?\n/);
  const head = split < 0 ? text : text.slice(0, split);
  const body = split < 0 ? "" : text.slice(split).replace(/^\r?\n\r?\n/, "");
  const headers: { name: string; value: string }[] = [];
  for (const line of head.split(/\r?\n/)) {
    if (/^\s/.test(line) && headers.length) headers[headers.length - 1]!.value += ` ${line.trim()}`;
    else {
      const i = line.indexOf(":");
      if (i > 0) headers.push({ name: line.slice(0, i).trim(), value: line.slice(i + 1).trim() });
    }
  }
  return { headers, text: body };
}

// --- the server ----------------------------------------------------------------------------------

class HttpFail extends Error {
  constructor(
    readonly status: number,
    readonly statusText: string,
    message: string,
  ) {
    super(message);
  }
}

export async function startFakeGmail(opts: {
  verifyToken: (token: string) => Promise<TokenInfo | null>;
  accounts?: Record<string, IssuerAccount>;
  port?: number;
  host?: string;
}): Promise<FakeGmail> {
  const accounts = opts.accounts ?? demoIssuerAccounts;
  const boxes = new Map<string, Mailbox>();
  const faults: Faults = { delayMs: 0, hold: null, status: null, match: null };
  const calls = new Map<string, number>();
  const boxOf = (sub: string) => {
    let box = boxes.get(sub);
    if (!box) {
      const acct = accounts[sub] ?? { email: `${sub}@example.test`, name: sub };
      box = seedMailbox(acct.email, acct.name);
      boxes.set(sub, box);
    }
    return box;
  };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://local");
    const method = req.method ?? "GET";
    const path = url.pathname;
    calls.set(`${method} ${path}`, (calls.get(`${method} ${path}`) ?? 0) + 1);
    const body = await readBody(req);

    const faulted = faults.match === null || faults.match.test(`${method} ${path}`);
    if (faulted && faults.delayMs > 0) await new Promise((r) => setTimeout(r, faults.delayMs));
    if (faulted && faults.hold) await faults.hold;
    if (faulted && faults.status !== null) throw new HttpFail(faults.status, faults.status === 401 ? "UNAUTHENTICATED" : "UNAVAILABLE", "Injected fault.");

    const auth = req.headers.authorization ?? "";
    const token = /^Bearer (.+)$/i.exec(auth)?.[1];
    const info = token ? await opts.verifyToken(token) : null;
    if (!info) throw new HttpFail(401, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token.");
    const need = (scopes: string[]) => {
      if (!scopes.some((s) => info.scopes.has(s))) throw new HttpFail(403, "PERMISSION_DENIED", "Request had insufficient authentication scopes.");
    };
    const box = boxOf(info.sub);
    const find = (id: string) => {
      const m = box.messages.find((x) => x.id === id);
      if (!m) throw new HttpFail(404, "NOT_FOUND", "Requested entity was not found.");
      return m;
    };
    const page = <T>(items: T[]) => {
      const max = Math.min(Math.max(Number(url.searchParams.get("maxResults") ?? 100) || 100, 1), 500);
      const start = Number(url.searchParams.get("pageToken") ?? 0) || 0;
      const slice = items.slice(start, start + max);
      return { slice, nextPageToken: start + max < items.length ? String(start + max) : undefined, total: items.length };
    };
    const ordered = () => [...box.messages].sort((a, b) => b.internalDate - a.internalDate);
    const selected = () => {
      const matches = gmailQueryMatcher(url.searchParams.get("q") ?? "");
      const labelIds = url.searchParams.getAll("labelIds");
      return ordered().filter((m) => labelIds.every((l) => m.labelIds.has(l)) && matches(searchable(box, m)));
    };
    const format = url.searchParams.get("format") ?? "full";
    const metadataHeaders = url.searchParams.getAll("metadataHeaders");
    let m: RegExpExecArray | null;

    if (method === "GET" && path === "/gmail/v1/users/me/profile") {
      need(NEEDS.read);
      return json(res, 200, { emailAddress: box.email, messagesTotal: box.messages.length, threadsTotal: new Set(box.messages.map((x) => x.threadId)).size, historyId: "1" });
    }
    if (method === "GET" && path === "/gmail/v1/users/me/messages") {
      need(NEEDS.read);
      const p = page(selected());
      return json(res, 200, { messages: p.slice.map((x) => ({ id: x.id, threadId: x.threadId })), nextPageToken: p.nextPageToken, resultSizeEstimate: p.total });
    }
    if (method === "POST" && path === "/gmail/v1/users/me/messages/send") {
      need(NEEDS.send);
      const raw = typeof body.raw === "string" ? body.raw : "";
      if (!raw) throw new HttpFail(400, "INVALID_ARGUMENT", "'raw' RFC822 payload message string or uploading message via /upload/* URL required");
      const parsed = parseRaw(raw);
      const threadId = typeof body.threadId === "string" && box.messages.some((x) => x.threadId === body.threadId) ? body.threadId : null;
      const id = newMessageId(box);
      const sent: Message = { id, threadId: threadId ?? id, labelIds: new Set(["SENT"]), internalDate: Date.now(), headers: [{ name: "From", value: `${box.name} <${box.email}>` }, ...parsed.headers.filter((h) => h.name.toLowerCase() !== "from")], text: parsed.text, attachments: [] };
      box.messages.push(sent);
      return json(res, 200, { id: sent.id, threadId: sent.threadId, labelIds: [...sent.labelIds] });
    }
    if ((m = /^\/gmail\/v1\/users\/me\/messages\/([^/]+)\/attachments\/([^/]+)$/.exec(path)) && method === "GET") {
      need(NEEDS.read);
      const a = find(m[1]!).attachments.find((x) => x.id === m![2]);
      if (!a) throw new HttpFail(404, "NOT_FOUND", "Requested entity was not found.");
      return json(res, 200, { attachmentId: a.id, size: a.data.length, data: b64url(a.data) });
    }
    if ((m = /^\/gmail\/v1\/users\/me\/messages\/([^/]+)\/modify$/.exec(path)) && method === "POST") {
      need(NEEDS.modify);
      const msg = find(m[1]!);
      const add = Array.isArray(body.addLabelIds) ? (body.addLabelIds as string[]) : [];
      const remove = Array.isArray(body.removeLabelIds) ? (body.removeLabelIds as string[]) : [];
      for (const id of [...add, ...remove]) if (!box.labels.some((l) => l.id === id)) throw new HttpFail(400, "INVALID_ARGUMENT", `Invalid label: ${id}`);
      for (const id of add) msg.labelIds.add(id);
      for (const id of remove) msg.labelIds.delete(id);
      return json(res, 200, messageResource(msg, "minimal", []));
    }
    if ((m = /^\/gmail\/v1\/users\/me\/messages\/([^/]+)$/.exec(path)) && method === "GET") {
      need(NEEDS.read);
      return json(res, 200, messageResource(find(m[1]!), format, metadataHeaders));
    }
    if (method === "GET" && path === "/gmail/v1/users/me/threads") {
      need(NEEDS.read);
      const ids: string[] = [];
      for (const x of selected()) if (!ids.includes(x.threadId)) ids.push(x.threadId);
      const p = page(ids);
      return json(res, 200, {
        threads: p.slice.map((id) => {
          const latest = ordered().find((x) => x.threadId === id)!;
          return { id, snippet: snippet(latest), historyId: String(latest.internalDate) };
        }),
        nextPageToken: p.nextPageToken,
        resultSizeEstimate: p.total,
      });
    }
    if ((m = /^\/gmail\/v1\/users\/me\/threads\/([^/]+)$/.exec(path)) && method === "GET") {
      need(NEEDS.read);
      const msgs = box.messages.filter((x) => x.threadId === m![1]).sort((a, b) => a.internalDate - b.internalDate);
      if (!msgs.length) throw new HttpFail(404, "NOT_FOUND", "Requested entity was not found.");
      return json(res, 200, { id: m[1], historyId: "1", messages: msgs.map((x) => messageResource(x, format, metadataHeaders)) });
    }
    if (method === "GET" && path === "/gmail/v1/users/me/labels") {
      need(NEEDS.read);
      return json(res, 200, { labels: box.labels.map((l) => ({ id: l.id, name: l.name, type: l.type })) });
    }
    if ((m = /^\/gmail\/v1\/users\/me\/labels\/([^/]+)$/.exec(path)) && method === "GET") {
      need(NEEDS.read);
      const l = box.labels.find((x) => x.id === m![1]);
      if (!l) throw new HttpFail(404, "NOT_FOUND", "Requested entity was not found.");
      const tagged = box.messages.filter((x) => x.labelIds.has(l.id));
      return json(res, 200, { ...l, messagesTotal: tagged.length, messagesUnread: tagged.filter((x) => x.labelIds.has("UNREAD")).length, threadsTotal: new Set(tagged.map((x) => x.threadId)).size });
    }
    throw new HttpFail(404, "NOT_FOUND", "Not found.");
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const e = err instanceof HttpFail ? err : new HttpFail(500, "INTERNAL", "Internal error.");
      if (!res.headersSent && !res.destroyed) json(res, e.status, { error: { code: e.status, message: e.message, status: e.statusText, errors: [{ message: e.message, reason: e.statusText.toLowerCase() }] } });
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", resolve));
  const url = `http://${opts.host ?? "127.0.0.1"}:${(server.address() as AddressInfo).port}`;
  return {
    url,
    faults,
    calls,
    mailbox: (sub) => {
      const box = boxOf(sub);
      return { email: box.email, messages: box.messages.map((x) => ({ id: x.id, threadId: x.threadId, subject: header(x, "Subject"), labelIds: [...x.labelIds], to: header(x, "To") })) };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(res: ServerResponse, status: number, body: unknown) {
  if (res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=UTF-8", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > 10 * 1024 * 1024) throw new HttpFail(413, "INVALID_ARGUMENT", "Request too large.");
    chunks.push(c as Buffer);
  }
  if (!size) return {};
  try {
    const v: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    throw new HttpFail(400, "INVALID_ARGUMENT", "Invalid JSON payload received.");
  }
}

/**
 * For tests without a browser: play the person at the local issuer. Follows `authorizationUrl` through the
 * issuer's login and consent pages (signing in as `login`, or declining consent) and returns the URL the
 * issuer finally redirects to — the app's callback with `code` and `state` — without requesting it.
 */
export async function approveAtDevIssuer(authorizationUrl: string, opts: { login: string; decline?: boolean; maxSteps?: number }): Promise<string> {
  const jar = new Map<string, string>();
  const remember = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const i = pair!.indexOf("=");
      const value = pair!.slice(i + 1);
      if (/expires=Thu, 01 Jan 1970/i.test(c) || value === "") jar.delete(pair!.slice(0, i));
      else jar.set(pair!.slice(0, i), value);
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const origin = new URL(authorizationUrl).origin;
  let url = authorizationUrl;
  let form: { action: string; fields: Record<string, string> } | null = null;
  for (let step = 0; step < (opts.maxSteps ?? 12); step++) {
    const res: Response = form
      ? await fetch(new URL(form.action, origin), { method: "POST", redirect: "manual", headers: { cookie: cookie(), "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(form.fields).toString() })
      : await fetch(url, { redirect: "manual", headers: { cookie: cookie() } });
    form = null;
    remember(res);
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get("location")!, origin).toString();
      if (!url.startsWith(origin)) return url;
      continue;
    }
    const html = await res.text();
    if (res.status !== 200) throw new Error(`the issuer answered ${res.status}: ${html.replace(/<(style|script)[\s\S]*?<\/\1>/g, "").replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").slice(0, 300)}`);
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error("no form on the issuer page");
    if (html.includes('name="login"')) form = { action, fields: { prompt: "login", login: opts.login, password: "any password" } };
    // The development consent page has no cancel button; its interaction's abort route declines.
    else if (opts.decline) url = new URL(`${action}/abort`, origin).toString();
    else form = { action, fields: { prompt: "consent" } };
  }
  throw new Error("the issuer never redirected back");
}

// --- the whole local mail provider ---------------------------------------------------------------

export const DEVMAIL_CLIENT_ID = "realmgate-devmail";
/** Where Realmgate receives OAuth callbacks (the app's route; the fixture registers it as the exact redirect URI). */
export const CONNECTIONS_CALLBACK_PATH = "/api/v1/connections/callback";

export type DevMail = {
  env: Record<string, string>;
  issuer: string;
  gmail: FakeGmail;
  /** `on`: every refresh rotates the refresh token (as many providers do); off by default. */
  refreshRotation: { on: boolean };
  close: () => Promise<void>;
};

/**
 * The local mail provider for `npm run dev` and the tests: an OpenID Connect issuer granting Gmail scopes
 * (with refresh tokens and RFC 7009 revocation) and the Gmail-compatible API trusting its tokens.
 * `env` is what the app needs to use it.
 */
export async function startDevMail(opts: { appUrl: string; host?: string; issuerPort?: number; apiPort?: number; clientSecret?: string; name?: string }): Promise<DevMail> {
  const clientSecret = opts.clientSecret ?? randomBytes(24).toString("base64url");
  const appUrl = opts.appUrl.replace(/\/+$/, "");
  const refreshRotation = { on: false };
  const issuer = await startOidcIssuer({
    rotateRefreshTokens: () => refreshRotation.on,
    host: opts.host,
    port: opts.issuerPort,
    scopes: gmailScopeList,
    clients: [
      {
        client_id: DEVMAIL_CLIENT_ID,
        client_secret: clientSecret,
        redirect_uris: [`${appUrl}${CONNECTIONS_CALLBACK_PATH}`],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
      },
    ],
  });
  // The API trusts exactly the tokens this issuer minted: the same process looks them up (introspection).
  const gmail = await startFakeGmail({
    host: opts.host,
    port: opts.apiPort,
    verifyToken: async (token) => {
      const at = await issuer.provider.AccessToken.find(token);
      if (!at || at.isExpired || !at.accountId || at.clientId !== DEVMAIL_CLIENT_ID) return null;
      return { sub: at.accountId, scopes: new Set((at.scope ?? "").split(" ").filter(Boolean)) };
    },
  });
  return {
    issuer: issuer.issuer,
    gmail,
    refreshRotation,
    env: {
      REALMGATE_DEVMAIL_ISSUER: issuer.issuer,
      REALMGATE_DEVMAIL_CLIENT_ID: DEVMAIL_CLIENT_ID,
      REALMGATE_DEVMAIL_CLIENT_SECRET: clientSecret,
      REALMGATE_DEVMAIL_API_URL: gmail.url,
      REALMGATE_DEVMAIL_NAME: opts.name ?? "Demo mail (local)",
    },
    close: async () => {
      await gmail.close();
      await issuer.close();
    },
  };
}
