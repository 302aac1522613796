// The Gmail wire: the REST resources (only the fields used), how to read their headers, text and attachments,
// and the account session every call goes through (gate two and the provider calls live in lib/connections).
import { isAppError } from "@/lib/errors";
import { openAccount } from "@/lib/connections/session";
import type { RealmContext } from "@/lib/realms/contract";
import { manifest } from "./manifest";

/** The connection API the manifest names (`connection.api`). */
export const API = manifest.connection!.api;
export const BASE = "/gmail/v1/users/me";
/** Metadata fetches for one page run a few at a time. */
export const CONCURRENCY = 5;

export type Header = { name: string; value: string };
export type Part = { partId?: string; mimeType?: string; filename?: string; headers?: Header[]; body?: { data?: string; size?: number; attachmentId?: string }; parts?: Part[] };
export type GmailMessage = { id: string; threadId: string; labelIds?: string[]; snippet?: string; internalDate?: string; payload?: Part };
export type GmailLabel = { id: string; name: string; type?: string; messagesTotal?: number; messagesUnread?: number };

export const headerOf = (m: GmailMessage, name: string) => m.payload?.headers?.find((h) => h.name.toLowerCase() === name.toLowerCase())?.value ?? "";
export const dateOf = (m: GmailMessage) => (m.internalDate ? new Date(Number(m.internalDate)).toISOString() : undefined);
export const splitAddresses = (v: string) => (v ? v.split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/).map((s) => s.trim()).filter(Boolean) : []);
export const bareAddress = (v: string) => (/<([^>]+)>/.exec(v)?.[1] ?? v).trim().toLowerCase();

export function textOf(part: Part | undefined): string {
  if (!part) return "";
  if (part.mimeType?.startsWith("text/plain") && part.body?.data && !part.filename) return Buffer.from(part.body.data, "base64url").toString("utf8");
  for (const p of part.parts ?? []) {
    const t = textOf(p);
    if (t) return t;
  }
  return "";
}

export function attachmentsOf(part: Part | undefined, out: Part[] = []): Part[] {
  if (!part) return out;
  if (part.filename && part.body?.attachmentId) out.push(part);
  for (const p of part.parts ?? []) attachmentsOf(p, out);
  return out;
}

export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  });
  await Promise.all(workers);
  return out;
}

/** One of the authority's connected accounts, through gate two (lib/connections): pinned by a ref, or chosen by a selector. */
export function open(ctx: RealmContext, operation: string, claims: string[], where: { pinned?: string | null; selector?: string | null }) {
  return openAccount(ctx, { api: API, claims, namespace: manifest.namespace, operation, pinnedAccountId: where.pinned ?? null, selector: where.selector ?? null });
}

/** A provider answer, or null when the realm refuses or cannot say (not found, no such account, a demand, an outage). */
export async function orNull<T>(p: Promise<T>): Promise<T | null> {
  try {
    return await p;
  } catch (err) {
    if (isAppError(err)) return null;
    throw err;
  }
}
