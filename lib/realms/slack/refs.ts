// Slack refs carry their connected account: `slack:<account_id>:channel:<C…>`, `…:channel:<C…>@<ts>` (a window of
// the channel around one message: what search hits carry), `…:message:<C…>:<ts>`, `…:file:<F…>`, `…:user:<U…>`.
import { AppError } from "@/lib/errors";
import { invalidRef } from "@/lib/realms/refs";

export type RefType = "channel" | "message" | "file" | "user";
export const TYPE_OF: Record<string, RefType> = { "slack.channel": "channel", "slack.message": "message", "slack.file": "file", "slack.user": "user" };

export type SlackRef =
  | { type: "channel"; accountId: string; channel: string; at: string | null }
  | { type: "message"; accountId: string; channel: string; ts: string }
  | { type: "file"; accountId: string; file: string }
  | { type: "user"; accountId: string; user: string };

const ACCOUNT = "(acc_[0-9a-z]{20})";
/** Conversations: public (C), private (G) and direct (D) ones. */
export const CHANNEL_ID = /^[CGD][A-Z0-9]{2,20}$/;
export const USER_ID = /^[UW][A-Z0-9]{2,20}$/;
export const FILE_ID = /^F[A-Z0-9]{2,20}$/;
/** A message timestamp: seconds, a dot, six digits. */
export const TS = /^\d{9,11}\.\d{6}$/;

const PATTERN = new RegExp(`^slack:${ACCOUNT}:(?:channel:([CGD][A-Z0-9]{2,20})(?:@(\\d{9,11}\\.\\d{6}))?|message:([CGD][A-Z0-9]{2,20}):(\\d{9,11}\\.\\d{6})|file:(F[A-Z0-9]{2,20})|user:([UW][A-Z0-9]{2,20}))$`);

export const channelRef = (accountId: string, channel: string, at?: string | null) => `slack:${accountId}:channel:${channel}${at ? `@${at}` : ""}`;
export const messageRef = (accountId: string, channel: string, ts: string) => `slack:${accountId}:message:${channel}:${ts}`;
export const fileRef = (accountId: string, file: string) => `slack:${accountId}:file:${file}`;
export const userRef = (accountId: string, user: string) => `slack:${accountId}:user:${user}`;

export function parseSlackRef(ref: string): SlackRef {
  const m = PATTERN.exec(ref);
  if (!m) throw invalidRef(ref, "expected slack:<account_id>:channel:<C…>[@<ts>], :message:<C…>:<ts>, :file:<F…> or :user:<U…>");
  const accountId = m[1]!;
  if (m[2]) return { type: "channel", accountId, channel: m[2], at: m[3] ?? null };
  if (m[4]) return { type: "message", accountId, channel: m[4], ts: m[5]! };
  if (m[6]) return { type: "file", accountId, file: m[6] };
  return { type: "user", accountId, user: m[7]! };
}

/** The ref type of a manifest kind (`slack.message` when none is named); an unknown kind is invalid_input. */
export function kindOf(kind: string | null): RefType {
  if (kind === null) return "message";
  const t = Object.hasOwn(TYPE_OF, kind) ? TYPE_OF[kind] : undefined;
  if (!t) throw new AppError("invalid_input", `slack has no kind ${kind}.`, { details: { known_kinds: Object.keys(TYPE_OF) } });
  return t;
}
