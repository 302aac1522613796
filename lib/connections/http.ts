// Calls to outside providers, through lib/net: every one bounded in time (REALMGATE_PROVIDER_TIMEOUT_MS) and
// in size, no redirects followed (a 3xx is the answer). Endpoints the operator or a provider module configures
// may be private (a local provider in development and tests); endpoints a provider's discovery document names
// are held to `endpointPolicy` (providers/index.ts). Nothing here retries.
import { env } from "@/lib/env";
import { request, type NetError, type NetResponse, type PrivatePolicy } from "@/lib/net";

export const MAX_PROVIDER_RESPONSE_BYTES = 8 * 1024 * 1024;

export type ProviderRequest = {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Defaults to REALMGATE_PROVIDER_TIMEOUT_MS. */
  timeoutMs?: number;
  maxBytes?: number;
  /** Which hosts may be private addresses: all by default (configured endpoints). */
  allowPrivate?: PrivatePolicy;
};

/** Rejects with NetError when there is no answer (timeout, network, too large). */
export function providerFetch(url: string, req: ProviderRequest = {}): Promise<NetResponse> {
  return request({
    url,
    method: req.method ?? "GET",
    headers: req.headers,
    body: req.body,
    timeoutMs: req.timeoutMs ?? env().REALMGATE_PROVIDER_TIMEOUT_MS,
    maxBytes: req.maxBytes ?? MAX_PROVIDER_RESPONSE_BYTES,
    allowPrivate: req.allowPrivate ?? true,
    redirect: "return",
  });
}

export type ProviderFailure = { kind: "timeout" | "too_large" | "network"; message: string; status: 502 | 504 };

/** A call that produced no answer, as connection errors name it (`details.failure`, the words, the status). */
export function providerFailure(err: NetError): ProviderFailure {
  const host = err.host || "the provider";
  if (err.reason === "timeout") return { kind: "timeout", message: `${host} did not answer in time`, status: 504 };
  if (err.reason === "too_large") return { kind: "too_large", message: `${host} answered with too much data`, status: 502 };
  return { kind: "network", message: `${host} could not be reached`, status: 502 };
}
