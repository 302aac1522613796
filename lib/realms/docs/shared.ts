// What the docs kinds share: a child is visible exactly when its document is; input pieces; links to other
// objects gated like the call's target; serialising tab renumbering.
import { sql, type AnyColumn, type Placeholder, type SQL } from "drizzle-orm";
import { z } from "zod";
import { docsDocuments, type DocsDocument } from "@/db/schema/docs";
import { AppError } from "@/lib/errors";
import type { RealmContext } from "@/lib/realms/contract";
import { inTenant, likePattern, ownedOrShared, queryWords } from "@/lib/realms/native/sql";
import { cut, squash } from "@/lib/realms/native/text";

export const oneLine = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    // Leading and trailing whitespace (a trailing newline included) is trimmed away, so the pattern allows it: the
    // published JSON Schema sees the raw value, and must accept what this schema accepts.
    .regex(/^\s*[^\r\n]*\s*$/, "must be one line")
    .meta({ patternMessage: "must be one line (no line breaks)" });
export const title = oneLine(200);
export const refString = z.string().min(1).max(512);
export const selectorText = z.string().trim().min(1).max(1_000);
export const timeKey = z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
export const idKey = z.string().min(1).max(40);

/** Documents the caller may read: in the tenant, owned by or shared with the call's authority. */
export const visibleDocuments = (ctx: RealmContext): SQL => ownedOrShared(ctx, docsDocuments);
export const aclOf = (d: DocsDocument) => ({ ownerId: d.ownerId, sharedWith: d.sharedWith });

/** Serialise writes that renumber a document's tabs. */
export async function lockDocument(ctx: RealmContext, documentId: string): Promise<void> {
  await ctx.tx
    .select({ id: docsDocuments.id })
    .from(docsDocuments)
    .where(inTenant(ctx, docsDocuments, documentId))
    .for("update");
}

export async function touchDocument(ctx: RealmContext, documentId: string): Promise<void> {
  await ctx.tx
    .update(docsDocuments)
    .set({ updatedAt: ctx.now })
    .where(inTenant(ctx, docsDocuments, documentId));
}

/** Characters as Postgres' char_length counts them (code points), so sizes agree everywhere. */
export const charCount = (s: string) => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/** A search's words as placeholders of a statement built once (db/compiled.ts): at most ten (queryWords). */
export const TERMS = ["t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"] as const;
export type Term = (typeof TERMS)[number];
/** The values of TERMS for these words: each word's `ilike` pattern, the rest null. */
export const termPatterns = (terms: string[]): Record<Term, string | null> =>
  Object.fromEntries(TERMS.map((t, i) => [t, i < terms.length ? likePattern(terms[i]!) : null])) as Record<Term, string | null>;

/** A name a selector gives: the exact text (any case), or a part of it. */
export type TextMatch = { is: string } | { like: string };
/** Which comparison a TextMatch asks for: part of a statement's shape. */
export const matchKind = (m: TextMatch | undefined): "is" | "like" | null => (m ? ("is" in m ? "is" : "like") : null);
/** A TextMatch's value for its placeholder: the text, or its `ilike` pattern. */
export const matchValue = (m: TextMatch | undefined): string | null => (m ? ("is" in m ? m.is : likePattern(m.like)) : null);
/** The condition of a TextMatch of kind `kind` on `col`, its value the placeholder `value`; none without a kind. */
export function matchCondition(col: AnyColumn, kind: "is" | "like" | null, value: Placeholder): SQL | null {
  if (kind === "is") return sql`lower(${col}) = lower(${value}::text)`;
  if (kind === "like") return sql`${col} ilike ${value}`;
  return null;
}

export function searchTerms(query: string): string[] {
  const terms = queryWords(query);
  if (!terms.length) throw new AppError("invalid_input", "Say what to search for: the query is empty.", { details: { field: "query" } });
  return terms.map((t) => t.slice(0, 100));
}

/** The first few words of a text, as a person would quote it: “Beta in August is tight…”. */
export function firstWords(text: string, words = 8, max = 60): string {
  const all = squash(text).split(" ").filter(Boolean);
  const head = all.slice(0, words).join(" ");
  const short = cut(head, max);
  return short.length < squash(text).length && !short.endsWith("…") ? `${short}…` : short;
}
