// Self-registration (docs/provider-protocol.md, "Registration", way 2): with a one-time token an owner minted
// (`rgr_…`), the provider asks Realmgate to register its base URL; Realmgate fetches and validates the manifest
// and answers the registration with its secret, once. Keep the secret (it signs every call); never log it.
import type { RegistrationAnswer } from "./types";

export type RegisterOptions = {
  /** Realmgate's base URL, e.g. `https://realmgate.example`. */
  realmgateUrl: string;
  /** The one-time registration token (`rgr_…`). */
  token: string;
  /** The provider's own base URL, as Realmgate will call it. */
  url: string;
  fetchImpl?: typeof fetch;
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Realmgate's error answer as one line: `code: message` (with the problems a refused manifest has). */
function describeFailure(status: number, body: unknown, text: string): string {
  const error = isRecord(body) && isRecord(body.error) ? body.error : null;
  if (!error) return `HTTP ${status}${text ? `: ${text.slice(0, 300)}` : ""}`;
  const list = isRecord(error.details) ? (error.details.problems ?? error.details.issues) : undefined;
  const line = (p: unknown) => (isRecord(p) && typeof p.message === "string" ? (typeof p.path === "string" ? `${p.path}: ${p.message}` : p.message) : String(p));
  const problems = Array.isArray(list) && list.length > 0 ? ` (${list.slice(0, 20).map(line).join("; ")})` : "";
  return `HTTP ${status} ${String(error.code ?? "error")}: ${String(error.message ?? "")}${problems}`;
}

export async function registerWithRealmgate(opts: RegisterOptions): Promise<RegistrationAnswer> {
  const fetchImpl = opts.fetchImpl ?? fetch;
  const endpoint = `${opts.realmgateUrl.replace(/\/+$/, "")}/api/v1/remote-providers/register`;
  const res = await fetchImpl(endpoint, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", authorization: `Bearer ${opts.token}` },
    body: JSON.stringify({ url: opts.url }),
    redirect: "manual",
  });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!res.ok) throw new Error(`Realmgate refused the registration: ${describeFailure(res.status, body, text)}`);
  if (!isRecord(body) || !isRecord(body.provider) || typeof body.secret !== "string" || typeof body.tenant_id !== "string" || typeof body.provider.id !== "string") {
    throw new Error(`Realmgate's registration answer is not { provider, secret, tenant_id } (HTTP ${res.status})`);
  }
  return body as unknown as RegistrationAnswer;
}
