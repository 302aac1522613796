// The providers this deployment can connect to: every provider folder is listed once here, configured from
// the environment (each by its own schema), together with the API families they speak and the mapping
// between provider scopes and Realmgate claims. Nothing below this list knows a provider by name.
import { z } from "zod";
import { env, type Env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { bareHost, jsonOf, NetError, type PrivatePolicy } from "@/lib/net";
import { providerFailure, providerFetch } from "../http";
import { devmail } from "./devmail";
import { google } from "./google";
import { devslack, slack } from "./slack";
import type { ApiFamily, OAuthEndpoints, ProviderConfig, ProviderModule } from "./types";

export type {
  ApiFamily,
  ApiProbe,
  ClaimDef,
  Identity,
  IdentityStrategy,
  OAuthEndpoints,
  ProviderAnswer,
  ProviderConfig,
  ProviderModule,
  ProviderOutcome,
  RevocationStrategy,
  ScopeRequest,
  TokenAnswer,
  Verdict,
} from "./types";

/** Every provider Realmgate knows, in display order. */
const modules: ProviderModule[] = [google, devmail, slack, devslack];

export const apiFamilies: Record<string, ApiFamily> = Object.fromEntries(modules.flatMap((m) => m.apis).map((a) => [a.id, a]));

const configured = new WeakMap<Env, ProviderConfig[]>();

/** Every provider this deployment can connect to, in display order. */
export function configuredProviders(): ProviderConfig[] {
  const cfg = env();
  let list = configured.get(cfg);
  if (!list) {
    // Read with the configuration's generation: a reloaded environment (tests, scripts) builds the list anew.
    list = modules.map((m) => m.fromEnv(process.env)).filter((p): p is ProviderConfig => p !== null);
    configured.set(cfg, list);
  }
  return list;
}

export const providersForApi = (api: string) => configuredProviders().filter((p) => p.api === api);

export function findProvider(id: string): ProviderConfig | null {
  return configuredProviders().find((p) => p.id === id) ?? null;
}

export function requireProvider(id: string): ProviderConfig {
  const p = findProvider(id);
  if (!p) {
    throw new AppError("invalid_input", `No provider "${id.slice(0, 40)}" is configured here.`, {
      details: { provider: id.slice(0, 40), configured: configuredProviders().map((x) => x.id) },
    });
  }
  return p;
}

export function apiFamily(id: string): ApiFamily {
  const a = Object.hasOwn(apiFamilies, id) ? apiFamilies[id] : undefined;
  if (!a) throw new AppError("invalid_input", `No API family "${id.slice(0, 40)}".`);
  return a;
}

/** The claims a set of granted scopes covers: one of a claim's alternatives, every scope of it granted. */
export function claimsFromScopes(api: ApiFamily, scopes: readonly string[]): string[] {
  const granted = new Set(scopes);
  const holds = (alt: string | string[]) => (typeof alt === "string" ? granted.has(alt) : alt.length > 0 && alt.every((s) => granted.has(s)));
  return api.claims.filter((c) => c.satisfiedBy.some(holds)).map((c) => c.name);
}

/** The scopes to ask for so that `claims` are covered. Unknown claims are `invalid_input`. */
export function scopesForClaims(api: ApiFamily, claims: readonly string[]): string[] {
  const out = new Set<string>();
  for (const name of claims) {
    const c = api.claims.find((x) => x.name === name);
    if (!c) throw new AppError("invalid_input", `Unknown claim "${name.slice(0, 60)}" for ${api.label}.`, { details: { known_claims: api.claims.map((x) => x.name) } });
    for (const s of typeof c.request === "string" ? [c.request] : c.request) out.add(s);
  }
  return [...out];
}

export const claimLabel = (api: ApiFamily, claim: string) => api.claims.find((c) => c.name === claim)?.label ?? claim;

// --- endpoints ------------------------------------------------------------------------------------

const discoveryDoc = z.object({
  issuer: z.string(),
  authorization_endpoint: z.url(),
  token_endpoint: z.url(),
  jwks_uri: z.url(),
  revocation_endpoint: z.url().optional(),
});

/** Discovery documents change rarely; a cached copy is only a cache (every node can refetch it). */
const discovered = new Map<string, { endpoints: OAuthEndpoints; until: number }>();
const DISCOVERY_TTL_MS = 60 * 60 * 1000;

/**
 * Which OAuth endpoints may be private addresses. Configured ones: all (the operator wrote them). Discovered
 * ones only on the issuer's own host: a discovery document (or whoever controls the issuer) cannot point
 * Realmgate at another machine inside its network.
 */
export function endpointPolicy(p: ProviderConfig): PrivatePolicy {
  if (p.endpoints !== "discover") return true;
  const issuerHost = bareHost(new URL(p.issuer));
  return (host) => host === issuerHost;
}

export async function endpointsOf(p: ProviderConfig): Promise<OAuthEndpoints> {
  if (p.endpoints !== "discover") return p.endpoints;
  const hit = discovered.get(p.issuer);
  if (hit && hit.until > Date.now()) return hit.endpoints;
  const url = `${p.issuer}/.well-known/openid-configuration`;
  let doc: z.infer<typeof discoveryDoc>;
  try {
    const res = await providerFetch(url, { headers: { accept: "application/json" }, maxBytes: 256 * 1024 });
    const parsed = discoveryDoc.safeParse(res.status === 200 ? jsonOf(res) : null);
    if (!parsed.success) throw new AppError("provider_unavailable", `${p.label} did not publish a usable OpenID Connect discovery document.`, { details: { provider: p.id, status: res.status } });
    doc = parsed.data;
  } catch (err) {
    if (err instanceof NetError) {
      const f = providerFailure(err);
      throw new AppError("provider_unavailable", `${p.label} could not be reached: ${f.message}.`, { status: f.status, details: { provider: p.id }, cause: err });
    }
    throw err;
  }
  if (doc.issuer.replace(/\/+$/, "") !== p.issuer) {
    throw new AppError("provider_unavailable", `${p.label}'s discovery document names another issuer.`, { details: { provider: p.id } });
  }
  const endpoints = { authorization: doc.authorization_endpoint, token: doc.token_endpoint, jwks: doc.jwks_uri, revocation: doc.revocation_endpoint ?? null };
  discovered.set(p.issuer, { endpoints, until: Date.now() + DISCOVERY_TTL_MS });
  return endpoints;
}
