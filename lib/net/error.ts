// The one error of outbound HTTP. Its message names the host (never the path, query, headers or body, which
// may carry credentials), so callers may show it; `reason` is what they map to their own public error codes.
export type NetErrorReason =
  /** The URL cannot be called (not http(s), credentials in it, not a URL); nothing was sent. */
  | "bad_url"
  /** A header cannot be sent (not a token, a bad value, a framing header); nothing was sent. */
  | "bad_header"
  /** The host is, or resolved to, a private address the caller's policy does not allow; nothing was sent. */
  | "blocked_address"
  | "timeout"
  | "too_large"
  /** No connection (refused, reset, DNS failure…); `code` says which when the system did. */
  | "unreachable"
  /** The server answered with a redirect and the caller refuses them. */
  | "redirect"
  /** The server's answer is not HTTP Node can read. */
  | "bad_response";

export class NetError extends Error {
  constructor(
    readonly reason: NetErrorReason,
    /** host[:port] of the request. */
    readonly host: string,
    message: string,
    options?: { cause?: unknown; code?: string | null },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "NetError";
    this.code = options?.code ?? null;
  }

  /** The system error code behind an `unreachable` (ECONNREFUSED, ENOTFOUND…), if any. */
  readonly code: string | null;
}
