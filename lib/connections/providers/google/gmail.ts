// The Gmail API family: Realmgate's mail claims and the Google scopes that satisfy them, and how the Gmail
// REST API says no (`{ "error": { "code", "message", "status" } }`). Any provider speaking that API (Google
// itself, or a compatible server such as devmail) uses these scope names and this classification.
import type { ApiFamily, ProviderAnswer, Verdict } from "../types";

const READONLY = "https://www.googleapis.com/auth/gmail.readonly";
const SEND = "https://www.googleapis.com/auth/gmail.send";
const COMPOSE = "https://www.googleapis.com/auth/gmail.compose";
const MODIFY = "https://www.googleapis.com/auth/gmail.modify";
const FULL = "https://mail.google.com/";

export const gmailScopes = { READONLY, SEND, COMPOSE, MODIFY, FULL } as const;

export const gmailApi: ApiFamily = {
  id: "gmail",
  label: "Mail",
  claims: [
    { name: "gmail:read", label: "Read your mail and labels", request: READONLY, satisfiedBy: [READONLY, MODIFY, FULL] },
    { name: "gmail:send", label: "Send mail as you", request: SEND, satisfiedBy: [SEND, COMPOSE, MODIFY, FULL] },
    { name: "gmail:modify", label: "Archive and label your mail", request: MODIFY, satisfiedBy: [MODIFY, FULL] },
  ],
};

/** Google's API error body: `{ error: { message } }`. */
function googleMessage(body: unknown): string | null {
  const err = (body as { error?: { message?: unknown } } | null)?.error;
  return typeof err?.message === "string" ? err.message.slice(0, 300) : null;
}

export function classifyGoogleApi({ status, body }: ProviderAnswer): Verdict {
  const message = googleMessage(body);
  if (status >= 200 && status < 300) return { outcome: "ok", message: null };
  if (status === 401) return { outcome: "auth_invalid", message };
  // Google answers a missing scope with 403 "Request had insufficient authentication scopes."
  if (status === 403) return { outcome: /scope|insufficient/i.test(message ?? "") ? "missing_scope" : "denied", message };
  if (status === 404) return { outcome: "not_found", message };
  if (status === 429 || status >= 500) return { outcome: "unavailable", message };
  return { outcome: "rejected", message };
}
