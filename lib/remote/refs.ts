// Ref templates of a remote realm: each kind's `ref_pattern` (`freight:shipment:<id>`) is literal text and
// `<placeholder>`s. Realmgate checks refs against them without calling the provider — on what an agent sends
// (before gate one) and on what a provider answers (a ref of another namespace is refused).

/** What one placeholder matches: 1–128 of A–Z a–z 0–9 . _ ~ - (never `:`). */
const SEGMENT = "[A-Za-z0-9._~-]{1,128}";
const PLACEHOLDER = /<[A-Za-z_][A-Za-z0-9_]*>/g;

export type RefMatcher = { kind: string; template: string; re: RegExp };

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export function templateRegex(template: string): RegExp {
  const literal = template.split(PLACEHOLDER).map(escape);
  return new RegExp(`^${literal.join(SEGMENT)}$`);
}

export function refMatchers(kinds: readonly { name: string; ref_pattern: string }[]): RefMatcher[] {
  return kinds.map((k) => ({ kind: k.name, template: k.ref_pattern, re: templateRegex(k.ref_pattern) }));
}

/** The kind a ref names by the templates, or null. */
export function kindOfRef(matchers: readonly RefMatcher[], ref: string): string | null {
  if (typeof ref !== "string" || ref.length > 1024) return null;
  return matchers.find((m) => m.re.test(ref))?.kind ?? null;
}

/** Why these templates cannot check refs of `namespace`: one message each (empty when they can). */
export function templateProblems(namespace: string, kinds: readonly { name: string; ref_pattern: string }[]): string[] {
  const out: string[] = [];
  const seen = new Map<string, string>();
  for (const k of kinds) {
    const t = k.ref_pattern;
    if (!t.startsWith(`${namespace}:`)) out.push(`kind ${k.name}: its ref_pattern "${t.slice(0, 80)}" must start with "${namespace}:" (a provider names only its own refs)`);
    if (!(t.match(PLACEHOLDER) ?? []).length) out.push(`kind ${k.name}: its ref_pattern "${t.slice(0, 80)}" has no <placeholder> (e.g. ${namespace}:thing:<id>)`);
    if (/[<>]/.test(t.replace(PLACEHOLDER, ""))) out.push(`kind ${k.name}: its ref_pattern "${t.slice(0, 80)}" has a stray < or > (placeholders are <name>)`);
    if (/\s/.test(t)) out.push(`kind ${k.name}: its ref_pattern must not contain spaces`);
    const shape = t.replace(PLACEHOLDER, "<>");
    const other = seen.get(shape);
    if (other) out.push(`kinds ${other} and ${k.name} have the same ref_pattern shape "${t.slice(0, 80)}": a ref could not say which it is`);
    else seen.set(shape, k.name);
  }
  return out;
}
