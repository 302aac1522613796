// Development fixture: a local server speaking OpenAI's embeddings API (`POST /v1/embeddings`) with a tiny,
// deterministic "model": a hashed bag of stemmed words, where a small table of synonyms maps words to one
// concept ("trash", "discard" → delete; "remark" → comment). That is enough for search by meaning to find what
// words alone miss, and for tests to know the answer in advance. It is not a language model: numbers measured
// with it say nothing about a real one. Faults (delay, status) can be injected; every call is recorded.
// Nothing under lib/ knows this exists: the app sees an embeddings endpoint configured from the environment.
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { stemmer } from "stemmer";

/** Words that mean the same here; the first of each group is the concept the others become. */
const CONCEPTS: string[][] = [
  ["delete", "remove", "trash", "discard", "purge", "erase", "destroy", "drop", "wipe"],
  ["create", "add", "new", "make", "open", "file", "start", "raise", "submit"],
  ["update", "edit", "modify", "change", "patch", "amend", "tweak"],
  ["reply", "respond", "answer", "response"],
  ["comment", "remark", "note", "feedback", "message"],
  ["ticket", "case", "incident", "complaint", "issue"],
  ["person", "people", "user", "customer", "contact", "requester", "somebody", "someone"],
  ["search", "find", "lookup", "look", "locate", "hunt"],
  ["download", "fetch", "retrieve", "save", "grab"],
  ["attachment", "attached", "enclosure"],
  ["list", "show", "browse", "enumerate", "all"],
  ["status", "health", "uptime", "alive", "up", "running"],
  ["resolve", "close", "settle", "finish", "done"],
  ["document", "doc", "page", "paper", "write-up", "writeup"],
  ["thread", "discussion", "conversation"],
];
const STOP = new Set(["a", "an", "the", "to", "of", "on", "in", "for", "and", "or", "i", "it", "is", "be", "with", "this", "that", "please", "can", "you", "my", "me", "by", "from", "as", "at", "its", "their", "one"]);

const concept = new Map<string, string>();
for (const [head, ...rest] of CONCEPTS) for (const w of [head!, ...rest]) concept.set(stemmer(w), head!);

function bucket(term: string, dims: number): { at: number; sign: number } {
  const h = createHash("sha256").update(term).digest();
  return { at: h.readUInt32BE(0) % dims, sign: h[4]! & 1 ? 1 : -1 };
}

/** The fake model: unit-length sum of one signed hashed slot per (concept of a) word. */
export function fakeEmbedding(text: string, dims: number): number[] {
  const v = new Array<number>(dims).fill(0);
  const words = text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9-]+/)
    .filter((w) => w && !STOP.has(w));
  for (const w of words) {
    const s = stemmer(w);
    const { at, sign } = bucket(concept.get(s) ?? s, dims);
    v[at]! += sign;
  }
  const n = Math.sqrt(v.reduce((a, x) => a + x * x, 0));
  // An empty text still gets a vector (OpenAI never answers with zeros); any fixed direction will do.
  if (n === 0) v[0] = 1;
  return n === 0 ? v : v.map((x) => x / n);
}

export type EmbeddingsFaults = {
  /** Wait this long before answering. */
  delayMs: number;
  /** Answer only once this settles: a test decides when a slow endpoint answers. */
  hold: Promise<unknown> | null;
  /** Answer with this status instead of embedding. */
  status: number | null;
  /** Only calls with at least this many texts are affected: 2 hits batches of documents, not queries. */
  minInputs: number;
};

export type EmbeddingsCall = { model: string; inputs: number; authorization: string | null };

export type FakeEmbeddings = {
  /** Base URL (no `/v1`), as REALMGATE_EMBEDDINGS_URL would be set. */
  url: string;
  dims: number;
  faults: EmbeddingsFaults;
  calls: EmbeddingsCall[];
  close: () => Promise<void>;
};

const MAX_BODY = 8 * 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

const openAiError = (message: string, type: string) => ({ error: { message, type, param: null, code: null } });

/** Start the fake on 127.0.0.1 (a free port unless `port` is given). With `apiKey`, other bearers get 401. */
export async function startFakeEmbeddings(opts: { port?: number; dims?: number; apiKey?: string } = {}): Promise<FakeEmbeddings> {
  const dims = opts.dims ?? 256;
  const faults: EmbeddingsFaults = { delayMs: 0, hold: null, status: null, minInputs: 0 };
  const calls: EmbeddingsCall[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      if (req.method !== "POST" || req.url !== "/v1/embeddings") return send(res, 404, openAiError("Unknown endpoint.", "invalid_request_error"));
      const raw = await readBody(req);
      if (raw === null) return send(res, 413, openAiError("Request too large.", "invalid_request_error"));
      let body: { model?: unknown; input?: unknown };
      try {
        body = JSON.parse(raw) as typeof body;
      } catch {
        return send(res, 400, openAiError("Body is not JSON.", "invalid_request_error"));
      }
      const inputs = typeof body.input === "string" ? [body.input] : body.input;
      const authorization = req.headers.authorization ?? null;
      calls.push({ model: String(body.model), inputs: Array.isArray(inputs) ? inputs.length : 0, authorization });
      const faulty = (Array.isArray(inputs) ? inputs.length : 0) >= faults.minInputs;
      if (faulty && faults.delayMs) await new Promise((r) => setTimeout(r, faults.delayMs));
      if (faulty && faults.hold) await faults.hold;
      if (faulty && faults.status) return send(res, faults.status, openAiError("Injected fault.", "server_error"));
      if (opts.apiKey && authorization !== `Bearer ${opts.apiKey}`) return send(res, 401, openAiError("Incorrect API key provided.", "invalid_request_error"));
      if (typeof body.model !== "string" || !Array.isArray(inputs) || !inputs.length || !inputs.every((t) => typeof t === "string")) {
        return send(res, 400, openAiError("model and input (a string or a list of strings) are required.", "invalid_request_error"));
      }
      send(res, 200, {
        object: "list",
        model: body.model,
        data: (inputs as string[]).map((t, index) => ({ object: "embedding", index, embedding: fakeEmbedding(t, dims) })),
        usage: { prompt_tokens: 0, total_tokens: 0 },
      });
    })().catch(() => {
      if (!res.headersSent) send(res, 500, openAiError("Fake failed.", "server_error"));
    });
  });
  // Idle connections stay open until the client lets them go (or close()): a server closing a kept-alive socket
  // just as the client reuses it is an ECONNRESET no test means to provoke.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    dims,
    faults,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
