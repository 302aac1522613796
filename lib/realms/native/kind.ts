// What a kind module of a native realm supplies, and the small pieces kinds share: required fields, unsupported
// operations, and turning candidates into one object or an ambiguity.
import type { z } from "zod";
import { AppError } from "@/lib/errors";
import type { LeanItem, RealmContext, RefDescription } from "@/lib/realms/contract";

export type PageIn<F, C> = { filter: F; query: string | null; after: C | null; limit: number };
export type PageOut<C> = { items: LeanItem[]; next: C | null };
export type Written = { ref: string; object: Record<string, unknown> };
export type Described = Omit<RefDescription, "kind">;

/**
 * One kind of a native realm. Everything is optional: what a kind leaves out it does not support (the toolkit
 * answers with the same `invalid_input` for every realm). `schemas` are the single declaration of what upsert,
 * filters and selectors accept: the toolkit parses with them and publishes them as JSON Schema in the manifest.
 */
export type KindModule<Row = unknown, F = unknown, C = unknown, Cr = unknown, Pa = unknown, Se = unknown> = {
  /** What a person calls one (`comment thread`), for not_found messages. */
  noun: string;
  schemas?: { create?: z.ZodType<Cr>; patch?: z.ZodType<Pa>; filter?: z.ZodType<F>; selector?: z.ZodType<Se> };
  /** The keyset a page resumes from (the toolkit tags it with the kind, so it cannot be replayed on another list). */
  cursor?: z.ZodType<C>;
  /** One object the caller may read, or not_found (see `readable`). */
  load?(ctx: RealmContext, ref: string): Promise<Row>;
  present?(ctx: RealmContext, row: Row, full: boolean): Promise<Record<string, unknown>> | Record<string, unknown>;
  /**
   * The object at `ref` as `present` answers it, when the kind can ask for its reads at once rather than load, then
   * present: what it reads beside the object is discarded when the object is not the caller's to read (`load`'s
   * not_found or realm_denied is the answer). Without it, get is `load` then `present`.
   */
  get?(ctx: RealmContext, ref: string, full: boolean): Promise<Record<string, unknown>>;
  /** A page of the list (`query` null) or of a search (`searchable` kinds only); `limit` is already clamped. */
  page?(ctx: RealmContext, input: PageIn<F, C>): Promise<PageOut<C>>;
  searchable?: boolean;
  create?(ctx: RealmContext, fields: Cr): Promise<Written>;
  /** Patch the object at `ref` (loading it with the caller's authority) and return it as `get` would. */
  patch?(ctx: RealmContext, ref: string, fields: Pa): Promise<Record<string, unknown>>;
  /** Delete a loaded (readable) object; check who may destroy it first. */
  delete?(ctx: RealmContext, row: Row, ref: string): Promise<void>;
  /** Candidates for a selector (see `decide`): one → its ref, several → choices, none → not_found. */
  resolve?(ctx: RealmContext, selector: Se): Promise<LeanItem[]>;
  /** Ids (all of this kind) as a person reads them, with the caller's authority, in one query; the invisible left out. */
  describe?(ctx: RealmContext, ids: string[]): Promise<Map<string, Described>>;
  /** Ids (all of this kind) → the refs containing them, nearest first; no ACL (gate one only). */
  lineage?(ctx: RealmContext, ids: string[]): Promise<Map<string, string[]>>;
};

/** A kind module with its types inferred (rows, filters, cursors, fields, selectors). */
export function defineKind<Row, F = unknown, C = unknown, Cr = unknown, Pa = unknown, Se = unknown>(
  kind: KindModule<Row, F, C, Cr, Pa, Se>,
): KindModule<Row, F, C, Cr, Pa, Se> {
  return kind;
}

/** Selections never answer more than this many choices. */
export const MAX_CHOICES = 20;

export function unsupported(kind: string, operation: string): never {
  throw new AppError("invalid_input", `${kind} does not support ${operation}.`, { details: { kind, operation } });
}

/** `what` with its article: `requiredField("title", "a board")`. */
export function requiredField(field: string, what: string): AppError {
  return new AppError("invalid_input", `Invalid fields: ${field}: required to create ${what}.`, { details: { issues: [{ path: field, message: "required" }] } });
}

export function noMatch(noun: string, selector: Record<string, string>): AppError {
  return new AppError("not_found", `No ${noun} matches ${JSON.stringify(selector)} (or you may not see it).`, { details: { selector } });
}

/** An exact match (any case) wins; only when none matches, the partial ones. */
export async function decide<T>(exact: () => Promise<T[]>, partial?: () => Promise<T[]>): Promise<T[]> {
  const found = await exact();
  return found.length || !partial ? found : partial();
}

/**
 * Of the objects a name found, the ones to choose from under the call's grant: under a ref-scoped grant those it
 * names (and, with `containers`, what those contain). When none is within the grant, a single match is kept (the
 * caller's gateRef then answers consent_required naming it, for the person to approve), but several are dropped:
 * the choices of an ambiguous name must never list what lies beyond the grant. Resolve names through this before
 * pickOne.
 */
export function withinGrant<T>(ctx: RealmContext, found: T[], refOf: (t: T) => string, containers?: (t: T) => string[]): T[] {
  const refs = ctx.grantScope?.refs;
  if (!refs) return found;
  const reachable = found.filter((t) => refs.includes(refOf(t)) || (containers?.(t) ?? []).some((r) => refs.includes(r)));
  return reachable.length || found.length !== 1 ? reachable : found;
}

/**
 * The one object a name inside a call stands for (a card's column by title): none → not_found, several →
 * ambiguous_selector with the choices, never a guess.
 */
export function pickOne<T>(found: T[], lean: (t: T) => LeanItem, names: { one: string; many: string }, selector: Record<string, string>): T {
  if (found.length === 0) throw noMatch(names.one, selector);
  if (found.length > 1) {
    throw new AppError("ambiguous_selector", `Several ${names.many} match ${JSON.stringify(selector)}; name one by its ref.`, {
      details: { selector, choices: found.slice(0, MAX_CHOICES).map(lean) },
    });
  }
  return found[0]!;
}

/**
 * A keyset page from rows fetched one past the page (`limit(n + 1)`): the first n as lean items, and the
 * cursor of the last shown when more follow.
 */
export function pageOf<R, C>(rows: R[], n: number, lean: (row: R) => LeanItem, keyOf: (last: R) => C): PageOut<C> {
  const shown = rows.slice(0, n);
  const last = shown.at(-1);
  return { items: shown.map(lean), next: rows.length > n && last !== undefined ? keyOf(last) : null };
}
