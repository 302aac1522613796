// Browser-side calls to Realmgate's REST API (same origin, session cookie). Errors keep the API's shape; when the
// API could not be reached at all, a NetworkError says so in words (never the browser's "Failed to fetch").
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** What every caller shows when the request never got an answer (offline, server down, connection dropped). */
export const UNREACHABLE = "The server could not be reached. Check your connection and try again.";

/** No answer from the API: the request failed on the network, before (or while) the response arrived. */
export class NetworkError extends Error {
  override readonly name = "NetworkError";
  constructor(cause: unknown) {
    super(UNREACHABLE, { cause });
  }
}

export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  // Outside the try: a body that cannot be serialised is a bug of the caller's, not the network's.
  const body = init.body === undefined ? undefined : JSON.stringify(init.body);
  let res: Response;
  try {
    res = await fetch(path, {
      method: init.method ?? "GET",
      headers: body === undefined ? undefined : { "content-type": "application/json" },
      body,
      credentials: "same-origin",
    });
  } catch (err) {
    // fetch rejects with a TypeError on a network failure; anything else (an abort) passes through unchanged.
    throw err instanceof TypeError ? new NetworkError(err) : err;
  }
  let bodyLost: unknown = null;
  const data = await res.json().catch((err: unknown) => {
    // Not JSON (or no body) is a SyntaxError and reads as no data; a TypeError is the connection dropping mid-body.
    if (err instanceof TypeError) bodyLost = err;
    return null;
  });
  if (!res.ok) {
    const e = data?.error;
    throw new ApiError(res.status, e?.code ?? "internal_error", e?.message ?? `Request failed (${res.status})`, e?.details);
  }
  if (bodyLost) throw new NetworkError(bodyLost);
  return data as T;
}
