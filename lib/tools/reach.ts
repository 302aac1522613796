// What a let-in call may reach under its grant's scope: results are narrowed to it, a selector resolves among
// the objects it covers, and a target outside it is `not_found` (it may exist; the caller may not see it).
import { coversRef } from "@/lib/authz/gate";
import { AppError } from "@/lib/errors";
import type { ParsedRef, Realm, RealmContext, ResourceScope } from "@/lib/realms/contract";
import type { RunCtx } from "./define";

export function reachOf(realm: Realm, ctx: RealmContext, scope: ResourceScope | null): Pick<RunCtx<unknown>, "inScope" | "resolveTarget" | "scoped"> {
  const m = realm.manifest;
  const a = realm.adapter;
  /** Which of these refs the grant's scope covers, themselves or through what contains them (exact refs, never prefixes). */
  const inScope = async (refs: string[]): Promise<Set<string>> => {
    if (!scope || refs.length === 0) return new Set(refs);
    const parsed = new Map<string, ParsedRef | undefined>(refs.map((r) => [r, safeParse(realm, r)]));
    // Only refs the scope does not name themselves need what contains them.
    const outside = refs.filter((r) => !coversRef(scope, r, [], parsed.get(r)));
    const lineage = outside.length && a.lineage ? await a.lineage(ctx, { refs: outside }) : {};
    return new Set(refs.filter((r) => coversRef(scope, r, lineage[r] ?? [], parsed.get(r))));
  };
  const resolveTarget = async (input: { ref?: string; kind?: string; selector?: Record<string, string> }): Promise<string> => {
    if (input.ref) return input.ref;
    if (!input.kind || !input.selector) {
      // Say which part is missing, and (for a missing kind) the kinds that have selectors here.
      const missing = !input.kind ? "kind" : "selector";
      const kinds = [...new Set(m.selectors.map((s) => s.kind))];
      throw new AppError("invalid_input", `Give a ref, or a kind with a selector: this call has no ${missing}${missing === "kind" && kinds.length ? ` (kinds with selectors in ${m.namespace}: ${kinds.join(", ")})` : ""}.`, {
        details: { field: missing, ...(missing === "kind" ? { kinds } : {}) },
      });
    }
    const declared = m.selectors.filter((s) => s.kind === input.kind).map((s) => s.by);
    const unknown = Object.keys(input.selector).filter((k) => !declared.includes(k));
    if (unknown.length || declared.length === 0) {
      throw new AppError("invalid_input", `No selector ${unknown.join(", ") || "at all"} for ${input.kind}.`, { details: { kind: input.kind, selectors: declared } });
    }
    const r = await a.resolve(ctx, { kind: input.kind, selector: input.selector });
    if ("choices" in r) {
      const covered = await inScope(r.choices.map((c) => c.ref));
      const choices = r.choices.filter((c) => covered.has(c.ref));
      if (choices.length === 1) return choices[0]!.ref;
      if (choices.length === 0) throw new AppError("not_found", `Nothing in ${input.kind} matches that selector.`, { details: { selector: input.selector } });
      throw new AppError("ambiguous_selector", `${choices.length} objects match; pick one ref and call again.`, { details: { selector: input.selector, choices: choices.slice(0, 20) } });
    }
    return r.ref;
  };
  const scoped = async (ref: string) => {
    if (!(await inScope([ref])).has(ref)) throw new AppError("not_found", `No object ${ref} (or you may not see it).`, { details: { ref } });
    return ref;
  };
  return { inScope, resolveTarget, scoped };
}

function safeParse(realm: Realm, ref: string): ParsedRef | undefined {
  try {
    return realm.adapter.parseRef(ref);
  } catch {
    return undefined;
  }
}
