// Calls to outside providers: every one bounded in time (AbortSignal) and in size, no redirects followed,
// failures classified so callers can answer `provider_unavailable` honestly. Nothing here retries.
import { env } from "@/lib/env";
import { readBoundedBytes } from "@/lib/input/bytes";

export const MAX_PROVIDER_RESPONSE_BYTES = 8 * 1024 * 1024;

export type ProviderResponse = { status: number; headers: Headers; text: string };

/** The call did not produce a response: it timed out, the network failed, or the answer was too large. */
export class ProviderCallError extends Error {
  constructor(
    readonly kind: "timeout" | "network" | "too_large",
    readonly url: string,
    options?: { cause?: unknown },
  ) {
    super(kind === "timeout" ? `${hostOf(url)} did not answer in time` : kind === "too_large" ? `${hostOf(url)} answered with too much data` : `${hostOf(url)} could not be reached`, options);
    this.name = "ProviderCallError";
  }
}

export const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return "the provider";
  }
};

export type ProviderRequest = {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Defaults to REALMGATE_PROVIDER_TIMEOUT_MS. */
  timeoutMs?: number;
  maxBytes?: number;
};

export async function providerFetch(url: string, req: ProviderRequest = {}): Promise<ProviderResponse> {
  const timeoutMs = req.timeoutMs ?? env().REALMGATE_PROVIDER_TIMEOUT_MS;
  const maxBytes = req.maxBytes ?? MAX_PROVIDER_RESPONSE_BYTES;
  const signal = AbortSignal.timeout(timeoutMs);
  let res: Response;
  try {
    res = await fetch(url, { method: req.method ?? "GET", headers: req.headers, body: req.body, redirect: "manual", signal, cache: "no-store" });
  } catch (err) {
    throw new ProviderCallError(signal.aborted ? "timeout" : "network", url, { cause: err });
  }
  try {
    return { status: res.status, headers: res.headers, text: await readBounded(res, maxBytes, url) };
  } catch (err) {
    if (err instanceof ProviderCallError) throw err;
    throw new ProviderCallError(signal.aborted ? "timeout" : "network", url, { cause: err });
  }
}

/** The body as text, refusing (without buffering it all) anything over `limit` bytes. */
async function readBounded(r: Response, limit: number, url: string): Promise<string> {
  return Buffer.from(await readBoundedBytes(r, limit, () => new ProviderCallError("too_large", url))).toString("utf8");
}

/** JSON of a provider answer, or null when it is not JSON. */
export function jsonOf(res: ProviderResponse): unknown {
  try {
    return JSON.parse(res.text);
  } catch {
    return null;
  }
}
