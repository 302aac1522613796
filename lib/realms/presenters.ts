// Per-action presenters: what a call that asked for consent would do, in a person's words. A realm may declare
// `presentRequest` (contract.ts); the consent page runs it with the grantor's authority. Any realm without one,
// or an operation its presenter does not know, gets the generic lines below: the call's fields or payload as
// `label: value`, bounded. Presented text is plain text (the page renders it as text, never as HTML).
// This file names no other realm file: the contract refers to the types here, so they take their context as a parameter.

export type PresentedLine = { label: string; value: string };
/** A call as a person reads it: a sentence, and what it carries (names resolved, long text cut). */
export type PresentedRequest = { title: string; lines: PresentedLine[] };

/**
 * The realm's presenter: `null` when it has nothing better than the generic lines for this operation. `ref` is the
 * request's target (the call may have named it by a selector); `input` the call's own input (the tool's arguments).
 */
export type RequestPresenter<Ctx> = (ctx: Ctx, request: { operation: string; ref: string | null; input: Record<string, unknown> }) => Promise<PresentedRequest | null>;

/** Bounds: at most this many lines, each value at most this many characters. */
export const MAX_LINES = 20;
export const MAX_VALUE_CHARS = 400;

/** Text cut to `max` characters (by code point, never splitting a surrogate pair), an ellipsis when cut. */
export function cut(text: string, max = MAX_VALUE_CHARS): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}

/** Words from a field name: `reply_all` → "Reply all". */
export const labelOf = (name: string): string => {
  const words = name.replace(/[_.-]+/g, " ").trim();
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : name;
};

/** A value as one line of text: refs by their name when `names` has it; lists joined; objects as short JSON. */
export function valueText(value: unknown, names: Record<string, string> = {}): string {
  if (value === null || value === undefined) return "(none)";
  if (typeof value === "string") return cut(names[value] ?? value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return value.length === 0 ? "(none)" : cut(value.map((v) => (typeof v === "string" ? (names[v] ?? v) : JSON.stringify(v))).join(", "));
  return cut(JSON.stringify(value));
}

/** Lines for an object's entries, in order, bounded. */
export function linesOf(obj: Record<string, unknown>, names: Record<string, string> = {}): PresentedLine[] {
  const entries = Object.entries(obj).filter(([, v]) => v !== undefined);
  // File bytes (`content_base64`) say how much they are, not what they spell.
  const text = (k: string, v: unknown) => (k.endsWith("_base64") && typeof v === "string" ? `(file contents, about ${Math.floor((v.length * 3) / 4)} bytes)` : valueText(v, names));
  const lines = entries.slice(0, MAX_LINES).map(([k, v]) => ({ label: labelOf(k), value: text(k, v) }));
  if (entries.length > MAX_LINES) lines.push({ label: "More", value: `${entries.length - MAX_LINES} more not shown` });
  return lines;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The generic presentation of a tool call's input: an action's payload, an upsert's fields, else the input itself
 * (less what only steers the call: the idempotency key). `title` is the operation's human label.
 */
export function genericPresentation(title: string, input: Record<string, unknown>, names: Record<string, string> = {}): PresentedRequest {
  const { idempotency_key: _key, ...rest } = input;
  const lines: PresentedLine[] = [];
  if (typeof rest.ref === "string") lines.push({ label: "On", value: valueText(rest.ref, names) });
  const body = isRecord(rest.payload) ? rest.payload : isRecord(rest.fields) ? rest.fields : Object.fromEntries(Object.entries(rest).filter(([k]) => k !== "ref"));
  lines.push(...linesOf(body, names));
  return { title, lines: lines.slice(0, MAX_LINES + 1) };
}

/**
 * An upsert's changes, field by field: `before → after` for a patch (the object as the grantor reads it now),
 * the new value for a create. Fields the call does not set are not listed.
 */
export function changeLines(fields: Record<string, unknown>, before: Record<string, unknown> | null, names: Record<string, string> = {}): PresentedLine[] {
  const entries = Object.entries(fields).filter(([, v]) => v !== undefined);
  const lines = entries.slice(0, MAX_LINES).map(([k, after]) => {
    const now = valueText(after, names);
    if (!before) return { label: labelOf(k), value: now };
    const was = valueText(before[k], names);
    return { label: labelOf(k), value: was === now ? `${now} (unchanged)` : `${was} → ${now}` };
  });
  if (entries.length > MAX_LINES) lines.push({ label: "More", value: `${entries.length - MAX_LINES} more fields not shown` });
  return lines;
}

/** The payload of an action call (`{}` when it sent none). */
export const payloadOf = (input: Record<string, unknown>): Record<string, unknown> => (isRecord(input.payload) ? input.payload : {});
/** The fields of an upsert call (`{}` when it sent none). */
export const fieldsOf = (input: Record<string, unknown>): Record<string, unknown> => (isRecord(input.fields) ? input.fields : {});
/** A string-valued member, else null. */
export const textOf = (obj: Record<string, unknown>, key: string): string | null => (typeof obj[key] === "string" ? (obj[key] as string) : null);

/** How a described ref reads in a line: its label, and its summary after a dash; `fallback` when it is not described. */
export const nameLine = (d: { label: string; summary?: string } | null | undefined, fallback: string): string =>
  d ? cut(d.summary ? `${d.label} — ${d.summary}` : d.label) : fallback;

/** What a line says of an item the grantor cannot see (never the ref as the main text). */
export const UNSEEN = "something you cannot see";

/** Long text a person should read whole (a reply, a message body): more room than a field, still bounded. */
export const MAX_TEXT_CHARS = 2000;
