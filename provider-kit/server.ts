// The provider's HTTP side (docs/provider-protocol.md, "The provider's two endpoints"): `GET <base>/manifest`
// answers the manifest document; `POST <base>/ops/<operation>` reads the body (bounded), verifies the call
// (verify.ts), decodes file bytes, runs the team's handler and answers `{ manifest_version, result }`, or
// `{ manifest_version, error }` with the error's status. `stream_file` answers the bytes themselves. Only
// node:http and the kit's own files; the log never carries the secret or a body.
import { Buffer } from "node:buffer";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { invalidInput, notFound, ProviderError, tooLarge, unavailable } from "./errors";
import { HEADER_FILENAME, HEADER_MANIFEST_VERSION, isProviderOperation, type ProviderOperation } from "./protocol";
import { ReplayCache } from "./replay";
import type { AnswerFailure, AuthContext, ManifestDocument, OperationInputs, OperationResults, StreamedFile } from "./types";
import { verifyCall } from "./verify";

export type ProviderHandlers = { [Op in ProviderOperation]: (ctx: AuthContext, input: OperationInputs[Op]) => Promise<OperationResults[Op]> };

export type Registration = { registrationId: string; tenantId: string; secret: string };

export type ProviderOptions = {
  /** The current manifest document (called for every answer: its version rides on each). */
  manifest: () => ManifestDocument;
  /** The registration calls are verified against; null until registered (calls then answer 503). */
  registration: () => Registration | null;
  handlers: Partial<ProviderHandlers>;
  /** The path the provider's URL has, e.g. `/freight` (no trailing slash). Default: none. */
  basePath?: string;
  /** The largest call body read. Default 24 MiB (a 16 MiB file, base64, in JSON). */
  maxBodyBytes?: number;
  /** One per process by default; pass one to share it, or to inspect it in tests. */
  replay?: ReplayCache;
  log?: (line: string) => void;
};

export type Provider = {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Listens on `host` (default 127.0.0.1: pass "0.0.0.0" to be reachable from elsewhere); port 0 picks one. */
  listen(port: number, host?: string): Promise<{ url: string; close(): Promise<void> }>;
};

export const DEFAULT_MAX_BODY_BYTES = 24 * 1024 * 1024;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Strict base64 (padded, no whitespace) to bytes, or invalid_input naming the field. */
function decodeBase64(v: unknown, field: string): Uint8Array {
  if (typeof v !== "string" || !BASE64.test(v)) throw invalidInput(`${field} must be base64`, field);
  return new Uint8Array(Buffer.from(v, "base64"));
}

/** The input as the handler receives it: bytes_base64 decoded for host_file and receive_upload. */
function handlerInput(op: ProviderOperation, input: Record<string, unknown>): unknown {
  if (op !== "host_file" && op !== "receive_upload") return input;
  const { bytes_base64, ...rest } = input;
  return { ...rest, bytes: decodeBase64(bytes_base64, "bytes_base64") };
}

/** Past the bound: `drained` when the rest was read and discarded (the connection can carry the answer cleanly). */
class BodyTooLarge extends Error {
  constructor(readonly drained: boolean) {
    super("body too large");
  }
}

/**
 * The body's bytes, refusing past `max`. A body a little over (up to twice the bound) is read to its end and
 * discarded, so the 413 reaches the caller cleanly (closing a socket with unread bytes resets it, and the caller
 * may lose the answer); anything larger is refused at once — by Content-Length when declared — and the
 * connection closed after the answer.
 */
function readBody(req: IncomingMessage, max: number): Promise<Uint8Array> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > 2 * max) return Promise.reject(new BodyTooLarge(false));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (e: Error) => {
      if (settled) return;
      settled = true;
      chunks.length = 0;
      reject(e);
    };
    req.on("data", (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > 2 * max) return fail(new BodyTooLarge(false));
      if (size > max) chunks.length = 0; // keep reading, keep nothing
      else chunks.push(chunk);
    });
    req.on("end", () => {
      if (settled) return;
      if (size > max) return fail(new BodyTooLarge(true));
      settled = true;
      resolve(new Uint8Array(Buffer.concat(chunks)));
    });
    req.on("error", fail);
  });
}

const errorMessage = (e: unknown): string => (e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : String(e));

export function createProvider(opts: ProviderOptions): Provider {
  const base = (opts.basePath ?? "").replace(/\/+$/, "");
  if (base !== "" && !base.startsWith("/")) throw new Error("basePath must start with /");
  const maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const replay = opts.replay ?? new ReplayCache();
  const log = opts.log ?? (() => {});

  /** The version every answer carries; a manifest() that throws must not stop an error answer. */
  const currentVersion = (): string => {
    try {
      return opts.manifest().manifest_version;
    } catch {
      return "unknown";
    }
  };

  const sendJson = (res: ServerResponse, status: number, value: unknown, extra: Record<string, string> = {}) => {
    const body = Buffer.from(JSON.stringify(value), "utf8");
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": String(body.length), "cache-control": "no-store", ...extra });
    res.end(body);
  };

  const sendError = (res: ServerResponse, e: ProviderError, extra: Record<string, string> = {}) => {
    const answer: AnswerFailure = { manifest_version: currentVersion(), error: { code: e.code, message: e.message, details: e.details } };
    sendJson(res, e.status, answer, extra);
  };

  const methodNotAllowed = (res: ServerResponse, method: string, allow: string) =>
    sendJson(
      res,
      405,
      { manifest_version: currentVersion(), error: { code: "invalid_input", message: `method ${method} is not allowed here; use ${allow}`, details: { allow } } } satisfies AnswerFailure,
      { allow },
    );

  const sendFile = (res: ServerResponse, file: StreamedFile) => {
    if (typeof file?.content_type !== "string" || typeof file.filename !== "string" || !(file.bytes instanceof Uint8Array)) throw new Error("stream_file handler must return { content_type, filename, bytes }");
    res.writeHead(200, {
      "content-type": file.content_type,
      "content-length": String(file.bytes.byteLength),
      [HEADER_FILENAME]: encodeURIComponent(file.filename),
      [HEADER_MANIFEST_VERSION]: currentVersion(),
      "cache-control": "no-store",
    });
    res.end(file.bytes);
  };

  async function call(req: IncomingMessage, res: ServerResponse, op: ProviderOperation, path: string): Promise<void> {
    let body: Uint8Array;
    try {
      body = await readBody(req, maxBody);
    } catch (e) {
      if (!(e instanceof BodyTooLarge)) throw e;
      if (e.drained) return sendError(res, tooLarge(maxBody));
      // Far too large to read through: answer, then drop the connection.
      res.on("finish", () => req.destroy());
      return sendError(res, tooLarge(maxBody), { connection: "close" });
    }
    const registration = opts.registration();
    if (!registration) return sendError(res, unavailable("not registered"));

    let context: AuthContext;
    let input: unknown;
    try {
      ({ context, input } = verifyCall({ ...registration, method: req.method ?? "POST", path, headers: req.headers, body, replay }));
    } catch (e) {
      if (e instanceof ProviderError) log(`refused a call to ${path}: ${e.message}`);
      throw e;
    }

    const handler = opts.handlers[op] as ((ctx: AuthContext, input: unknown) => Promise<unknown>) | undefined;
    if (!handler) throw notFound(`this provider does not answer the operation ${op}`, { operation: op });
    try {
      const result = await handler.call(opts.handlers, context, handlerInput(op, input as Record<string, unknown>));
      // `{ manifest_version }` alone is not an answer Realmgate accepts: a handler that returned nothing is a bug.
      if (result === undefined) throw new Error(`the ${op} handler returned nothing`);
      if (op === "stream_file") return sendFile(res, result as StreamedFile);
      sendJson(res, 200, { manifest_version: currentVersion(), result });
    } catch (e) {
      if (e instanceof ProviderError) throw e;
      // Logged here with the request id; the caller gets a generic answer (never the error's text).
      log(`${op} failed (request ${context.request_id}): ${errorMessage(e)}`);
      throw unavailable("the provider could not answer");
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // The path exactly as sent: the signature covers it, so no decoding or normalising.
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const method = req.method ?? "GET";
    try {
      if (path === `${base}/manifest`) {
        if (method !== "GET") return methodNotAllowed(res, method, "GET");
        return sendJson(res, 200, opts.manifest());
      }
      const prefix = `${base}/ops/`;
      const op = path.startsWith(prefix) ? path.slice(prefix.length) : null;
      if (op === null || !isProviderOperation(op)) {
        throw notFound(op === null ? `nothing at ${path}` : `no operation ${op}`, op === null ? { path } : { operation: op });
      }
      if (method !== "POST") return methodNotAllowed(res, method, "POST");
      await call(req, res, op, path);
    } catch (e) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (e instanceof ProviderError) return sendError(res, e);
      log(`${method} ${path} failed: ${errorMessage(e)}`);
      sendError(res, unavailable("the provider could not answer"));
    }
  }

  function listen(port: number, host = "127.0.0.1"): Promise<{ url: string; close(): Promise<void> }> {
    const server = createServer((req, res) => void handle(req, res));
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        const address = server.address() as AddressInfo;
        const hostText = address.family === "IPv6" ? `[${address.address}]` : address.address;
        resolve({
          url: `http://${hostText}:${address.port}${base}`,
          close: () =>
            new Promise<void>((done, fail) => {
              server.close((err) => (err ? fail(err) : done()));
              server.closeAllConnections();
            }),
        });
      });
    });
  }

  return { handle, listen };
}
