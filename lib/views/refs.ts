// Refs as the signed-in person reads them, for any page that would otherwise print a raw ref: each realm's
// describeRefs in one batch per realm, with the person's own authority. What they cannot see — an unknown
// realm, a ref its realm does not read, an object that is not there or not theirs to see — is null, the same
// null in every case, so the answer never tells existence apart.
import { z } from "zod";
import type { Executor } from "@/db/client";
import type { UserContext } from "@/lib/authz/context";
import { env } from "@/lib/env";
import { parseWith } from "@/lib/errors";
import { assertCleanText } from "@/lib/input/text";
import { describeRefsAs } from "@/lib/realms/names";
import { namespaceOfRef } from "@/lib/realms/refs";
import { findRealm } from "@/lib/realms/registry";

/** The most refs one request may name. */
export const MAX_DESCRIBE_REFS = 50;

/** One ref as a person reads it. */
export type RefName = { label: string; summary: string | null; kind: string };
export type DescribedRefs = { refs: Record<string, RefName | null> };

const refsQuery = z
  .array(
    z
      .string()
      .min(3)
      .max(512)
      .regex(/^[a-z][a-z0-9_]{1,30}:[\x21-\x7e]+$/, "a ref is `<namespace>:<rest>` in printable ASCII"),
  )
  .min(1, "name at least one ref: ?ref=<ref>")
  .max(MAX_DESCRIBE_REFS, `at most ${MAX_DESCRIBE_REFS} refs at a time`);

/** `?ref=…&ref=…` validated: 1 to 50 refs, each a well-formed ref (the realm's own syntax is not checked here). */
export function parseDescribeQuery(params: URLSearchParams): string[] {
  const refs = params.getAll("ref");
  assertCleanText(refs, "query", ["ref"]);
  return [...new Set(parseWith(refsQuery, refs, "ref"))];
}

/** Each ref's label, summary and kind with `who`'s authority; null for anything they cannot see. */
export async function describeRefsFor(db: Executor, who: Pick<UserContext, "tenantId" | "userId" | "requestId">, refs: string[]): Promise<DescribedRefs> {
  const out: Record<string, RefName | null> = Object.fromEntries(refs.map((r) => [r, null]));
  const byNamespace = new Map<string, string[]>();
  for (const ref of refs) {
    const ns = namespaceOfRef(ref);
    byNamespace.set(ns, [...(byNamespace.get(ns) ?? []), ref]);
  }
  for (const [namespace, wanted] of byNamespace) {
    const realm = await findRealm(db, who.tenantId, namespace);
    if (!realm) continue;
    const described = await describeRefsAs(db, { tenantId: who.tenantId, userId: who.userId, realm, refs: wanted, appUrl: env().appUrl, requestId: who.requestId });
    for (const ref of wanted) {
      const d = described[ref];
      // Only what the realm said of this very ref, and only its own keys (never an inherited member).
      if (d && Object.hasOwn(described, ref)) out[ref] = { label: d.label, summary: d.summary ?? null, kind: d.kind };
    }
  }
  return { refs: out };
}
