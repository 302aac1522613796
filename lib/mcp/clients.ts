// OAuth clients of the MCP gateway: dynamic client registration (RFC 7591) for older clients, Client ID
// Metadata Documents (client_id is an https URL serving the client's metadata) for current ones, and the
// redirect URI rules both share: exact match, except the port of a loopback redirect (RFC 8252 §7.3).
import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "@/db/client";
import { mcpClients, type McpClient } from "@/db/schema";
import { newId } from "@/lib/ids";
import { CLIENT_METADATA_MAX_BYTES, CLIENT_METADATA_TIMEOUT_MS, isLoopbackHost, loopbackDeployment } from "./config";
import { OAuthProtocolError } from "./errors";
import { bareHost, NetError, request, textOf } from "@/lib/net";

export type ResolvedClient = { clientId: string; name: string; redirectUris: string[]; registration: "dcr" | "cimd" };

const FORBIDDEN_SCHEMES = new Set(["javascript:", "data:", "vbscript:", "file:", "blob:", "about:", "ftp:", "ws:", "wss:"]);

/**
 * Redirect URIs a client may register: https; http only to a loopback address (native apps on this
 * machine); or a private-use scheme of a native app (`cursor://…`, `com.example.app:/cb`). Never a fragment.
 */
export function redirectUriProblem(uri: string): string | null {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return "is not an absolute URL";
  }
  if (u.hash || uri.includes("#")) return "must not contain a fragment";
  if (FORBIDDEN_SCHEMES.has(u.protocol)) return `must not use the ${u.protocol} scheme`;
  if (u.protocol === "http:" && !isLoopbackHost(u.hostname)) return "may use http only for a loopback address (127.0.0.1, [::1] or localhost)";
  if ((u.protocol === "http:" || u.protocol === "https:") && (u.username || u.password)) return "must not contain credentials";
  return null;
}

/** Exact match; for http loopback redirects any port is accepted, everything else must still be identical. */
export function redirectUriMatches(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  let r: URL;
  try {
    r = new URL(requested);
  } catch {
    return false;
  }
  if (r.protocol !== "http:" || !isLoopbackHost(r.hostname)) return false;
  const withoutPort = (u: URL) => `${u.protocol}//${u.hostname}${u.pathname}${u.search}`;
  return registered.some((reg) => {
    try {
      const g = new URL(reg);
      return g.protocol === "http:" && isLoopbackHost(g.hostname) && withoutPort(g) === withoutPort(r) && !requested.includes("#");
    } catch {
      return false;
    }
  });
}

const redirectUris = z
  .array(z.string().min(1).max(2000))
  .min(1)
  .max(20)
  .superRefine((uris, ctx) => {
    uris.forEach((uri, i) => {
      const problem = redirectUriProblem(uri);
      if (problem) ctx.addIssue({ code: "custom", path: [i], message: `${uri.slice(0, 200)} ${problem}` });
    });
  });

/**
 * The client metadata we accept (RFC 7591 §2), bounded. Unknown fields are dropped, as the RFC requires.
 * Only public clients: no secrets are issued, so the token endpoint authenticates by PKCE alone.
 */
export const clientMetadataSchema = z.object({
  redirect_uris: redirectUris,
  client_name: z.string().trim().min(1).max(100).optional(),
  client_uri: z.url({ protocol: /^https?$/ }).max(2000).optional(),
  logo_uri: z.url({ protocol: /^https$/ }).max(2000).optional(),
  grant_types: z.array(z.enum(["authorization_code", "refresh_token"])).min(1).max(2).optional(),
  response_types: z.array(z.literal("code")).min(1).max(1).optional(),
  token_endpoint_auth_method: z.string().max(60).optional(),
  scope: z.string().max(500).optional(),
  software_id: z.string().max(200).optional(),
  software_version: z.string().max(100).optional(),
});
export type ClientMetadata = z.infer<typeof clientMetadataSchema>;

function parseMetadata(raw: unknown, errorCode: "invalid_client_metadata" | "invalid_client"): ClientMetadata {
  const r = clientMetadataSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0]!;
    const path = i.path.map(String).join(".") || "(root)";
    const redirectProblem = i.path[0] === "redirect_uris" && i.path.length > 1;
    throw new OAuthProtocolError(redirectProblem && errorCode === "invalid_client_metadata" ? "invalid_redirect_uri" : errorCode, `${path}: ${i.message}`);
  }
  const method = r.data.token_endpoint_auth_method;
  if (method && method !== "none" && errorCode === "invalid_client") {
    // A metadata document is public: it cannot hold a shared secret.
    throw new OAuthProtocolError("invalid_client", `token_endpoint_auth_method ${method} is not supported; use "none" (PKCE).`);
  }
  return r.data;
}

const defaultName = (uri: string) => {
  try {
    return new URL(uri).host || "An MCP client";
  } catch {
    return "An MCP client";
  }
};

/** RFC 7591 registration: a public client (`token_endpoint_auth_method: "none"`), whatever was asked for. */
export async function registerClient(db: Executor, raw: unknown, now = new Date()) {
  const meta = parseMetadata(raw, "invalid_client_metadata");
  const clientId = newId("cli");
  const accepted = {
    ...meta,
    client_name: meta.client_name ?? defaultName(meta.redirect_uris[0]!),
    grant_types: meta.grant_types ?? ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
  await db.insert(mcpClients).values({
    id: clientId,
    clientId,
    registration: "dcr",
    clientName: accepted.client_name,
    redirectUris: accepted.redirect_uris,
    metadata: accepted,
    createdAt: now,
  });
  return { client_id: clientId, client_id_issued_at: Math.floor(now.getTime() / 1000), ...accepted };
}

/** Is this client_id a Client ID Metadata Document URL we may fetch? Returns the URL or a reason. */
export function clientIdUrl(clientId: string): URL | string {
  let u: URL;
  try {
    u = new URL(clientId);
  } catch {
    return "is neither a registered client id nor a URL";
  }
  const loopback = isLoopbackHost(u.hostname);
  if (u.protocol !== "https:" && !(u.protocol === "http:" && loopback && loopbackDeployment())) return "must be an https URL";
  if (u.pathname === "/" || u.pathname === "") return "must have a path";
  if (u.hash || clientId.includes("#")) return "must not contain a fragment";
  if (u.username || u.password) return "must not contain credentials";
  if (/\/\.\.?(\/|$)/.test(u.pathname)) return "must not contain dot segments";
  if (u.href !== clientId) return "must be written in normalized form";
  return u;
}

/** Loopback is reachable only from a loopback development deployment (documents served by local tools). */
const metadataPolicy = (host: string) => loopbackDeployment() && isLoopbackHost(host);

const UNRESOLVED = new Set(["ENOTFOUND", "EAI_AGAIN", "ENODATA", "EAI_NONAME"]);

/** Fetch and validate a Client ID Metadata Document: bounded in time and size, no redirects, no private hosts. */
export async function fetchClientMetadata(u: URL): Promise<ClientMetadata> {
  let res;
  try {
    res = await request({ url: u, headers: { accept: "application/json" }, timeoutMs: CLIENT_METADATA_TIMEOUT_MS, maxBytes: CLIENT_METADATA_MAX_BYTES, allowPrivate: metadataPolicy, redirect: "refuse" });
  } catch (err) {
    if (!(err instanceof NetError)) throw err;
    const host = bareHost(u);
    const message =
      err.reason === "blocked_address"
        ? "The client's metadata URL points at a private address; it must be publicly reachable."
        : err.reason === "unreachable" && err.code && UNRESOLVED.has(err.code)
          ? `The client's metadata host ${host} does not resolve.`
          : err.reason === "timeout"
            ? `The client's metadata document did not arrive within ${CLIENT_METADATA_TIMEOUT_MS} ms.`
            : err.reason === "too_large"
              ? `The client's metadata document is larger than ${CLIENT_METADATA_MAX_BYTES} bytes.`
              : "The client's metadata document could not be fetched.";
    throw new OAuthProtocolError("invalid_client", message);
  }
  if (res.status !== 200) throw new OAuthProtocolError("invalid_client", `The client's metadata document answered HTTP ${res.status}.`);
  let doc: unknown;
  try {
    doc = JSON.parse(textOf(res));
  } catch {
    throw new OAuthProtocolError("invalid_client", "The client's metadata document is not JSON.");
  }
  if (typeof doc !== "object" || doc === null || (doc as { client_id?: unknown }).client_id !== u.href) {
    throw new OAuthProtocolError("invalid_client", "The client's metadata document must name its own URL as client_id.");
  }
  return parseMetadata(doc, "invalid_client");
}

/** The client behind a client_id: a registered one, or a metadata document fetched now (and remembered for display). */
export async function resolveClient(db: Executor, clientId: string, now = new Date()): Promise<ResolvedClient> {
  if (clientId.startsWith("cli_")) {
    const [row] = await db.select().from(mcpClients).where(eq(mcpClients.clientId, clientId));
    if (!row || row.registration !== "dcr") throw new OAuthProtocolError("invalid_client", "This client is not registered here.");
    return toResolved(row);
  }
  const u = clientIdUrl(clientId);
  if (typeof u === "string") throw new OAuthProtocolError("invalid_client", `client_id ${u}.`);
  const meta = await fetchClientMetadata(u);
  const name = meta.client_name ?? u.host;
  const values = { clientName: name, redirectUris: meta.redirect_uris, metadata: meta, fetchedAt: now };
  await db
    .insert(mcpClients)
    .values({ id: newId("cli"), clientId, registration: "cimd", createdAt: now, ...values })
    .onConflictDoUpdate({ target: mcpClients.clientId, set: values });
  return { clientId, name, redirectUris: meta.redirect_uris, registration: "cimd" };
}

const toResolved = (row: McpClient): ResolvedClient => ({ clientId: row.clientId, name: row.clientName, redirectUris: row.redirectUris, registration: row.registration });
