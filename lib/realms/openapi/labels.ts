// Operation labels people and agents can tell apart. Many documents give several operations the same summary
// (TMDB: ten "Get Details", eight "Get Images"); a service card listing "Get Details" ten times says nothing.
// When labels collide, each gets the resource its path names: "Get Details" on /movie/{movie_id} and
// /tv/{tv_id} become "Get movie details" and "Get TV details". Pure and deterministic: the same operations
// always get the same labels, whatever their order.

export type LabelSource = { action: string; label: string; method: string; path: string };

/** Short words written in capitals when they name a resource. */
const ACRONYMS = new Set(["tv", "id", "ids", "api", "url", "uri", "ip", "dns", "ssh", "gpg", "ssl", "tls", "sso", "oauth", "saml", "pdf", "csv", "sms", "vm", "os", "ui"]);

const word = (w: string) => (ACRONYMS.has(w.toLowerCase()) ? w.toUpperCase() : w.toLowerCase());

/** The path's literal segments, in words: `/tv/{tv_id}/season/{n}/top_rated` → [["tv"], ["season"], ["top", "rated"]]. */
function resources(path: string): string[] {
  return path
    .split("/")
    .filter((s) => s && !s.includes("{"))
    .map((s) =>
      s
        .replace(/([a-z])([A-Z])/g, "$1 $2")
        .split(/[-_.\s]+/)
        .filter(Boolean)
        .map(word)
        .join(" "),
    )
    .filter(Boolean);
}

/** "Get Details" + "movie" → "Get movie details": the resource after the first word, Title Case words made lower. */
function withResource(label: string, resource: string): string {
  const words = label.trim().split(/\s+/);
  const lower = (w: string) => (/^[A-Z][a-z]+$/.test(w) ? w.toLowerCase() : w);
  if (words.length < 2) return `${words[0] ?? ""} ${resource}`.trim();
  return [words[0], resource, ...words.slice(1).map(lower)].join(" ");
}

const key = (s: string) => s.trim().toLowerCase();

/**
 * Labels that tell operations apart: each label used by one operation stays; each group sharing one gets the
 * fewest trailing path resources (after those every member ends with, like `images`) that make the group's
 * labels distinct, and, where even the whole path does not, the endpoint (`(GET /movie/latest)`). A label
 * made this way that another operation already has gets the endpoint too. Returns action → label.
 */
export function distinctLabels(ops: LabelSource[]): Map<string, string> {
  const out = new Map<string, string>();
  const groups = new Map<string, LabelSource[]>();
  for (const o of ops) {
    const g = groups.get(key(o.label));
    if (g) g.push(o);
    else groups.set(key(o.label), [o]);
  }
  const taken = new Set<string>();
  for (const [k, g] of groups) if (g.length === 1) taken.add(k);
  // Groups in a fixed order (their label), members in a fixed order (endpoint), so results never depend on order.
  const sorted = [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [, group] of sorted) {
    if (group.length === 1) {
      out.set(group[0]!.action, group[0]!.label);
      continue;
    }
    const members = [...group].sort((a, b) => cmp(`${a.path} ${a.method}`, `${b.path} ${b.method}`));
    const segs = members.map((m) => resources(m.path));
    // Drop the trailing segments every member shares (`…/images` for "Get Images").
    let common = 0;
    while (segs.every((s) => s.length > common) && segs.every((s) => s[s.length - 1 - common] === segs[0]![segs[0]!.length - 1 - common])) common++;
    const rest = segs.map((s) => s.slice(0, s.length - common));
    const longest = Math.max(...rest.map((r) => r.length));
    let phrases = rest.map((r) => r.join(" "));
    for (let n = 1; n <= longest; n++) {
      const tried = rest.map((r) => r.slice(-n).join(" "));
      if (new Set(tried).size === tried.length && tried.every(Boolean)) {
        phrases = tried;
        break;
      }
    }
    const counts = new Map<string, number>();
    for (const p of phrases) counts.set(p, (counts.get(p) ?? 0) + 1);
    members.forEach((m, i) => {
      const phrase = phrases[i]!;
      let label = phrase && counts.get(phrase) === 1 ? withResource(m.label, phrase) : `${m.label} (${m.method} ${m.path})`;
      if (taken.has(key(label))) label = `${label} (${m.method} ${m.path})`;
      taken.add(key(label));
      out.set(m.action, label);
    });
  }
  return out;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
