// lib/net as a `fetch`, for libraries that take one (jose's JWKS fetch, Auth.js's OpenID Connect calls): the
// same guard, bounds and policy as `request`, redirects returned (never followed), a NetError timeout surfaced
// as the `TimeoutError` those libraries look for.
import { NetError } from "./error";
import { request, type PrivatePolicy } from "./request";

export type NetFetchOptions = { timeoutMs: number | (() => number); maxBytes: number; allowPrivate: PrivatePolicy };

type FetchInit = { method?: string; headers?: HeadersInit; body?: BodyInit | null };

export function netFetch(opts: NetFetchOptions): (input: string | URL | Request, init?: FetchInit) => Promise<Response> {
  return async (input, init = {}) => {
    const url = input instanceof Request ? input.url : input;
    const headers = Object.fromEntries(new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined)).entries());
    const body = init.body == null ? undefined : new Uint8Array(await new Response(init.body).arrayBuffer());
    try {
      const res = await request({
        url,
        method: init.method ?? (input instanceof Request ? input.method : "GET"),
        headers,
        body,
        timeoutMs: typeof opts.timeoutMs === "function" ? opts.timeoutMs() : opts.timeoutMs,
        maxBytes: opts.maxBytes,
        allowPrivate: opts.allowPrivate,
        redirect: "return",
      });
      const out = new Headers();
      for (const [name, value] of Object.entries(res.headers)) {
        if (value === undefined) continue;
        for (const v of Array.isArray(value) ? value : [value]) out.append(name, v);
      }
      const nullBody = res.status === 204 || res.status === 304 || (init.method ?? "GET").toUpperCase() === "HEAD";
      return new Response(nullBody ? null : new Uint8Array(res.body), { status: res.status, headers: out });
    } catch (err) {
      if (err instanceof NetError && err.reason === "timeout") throw Object.assign(new Error(err.message, { cause: err }), { name: "TimeoutError" });
      throw err;
    }
  };
}
