// Development fixture: the search language of the local Slack-compatible server (dev/fake-slack.ts), the
// part of Slack's own ("Search in Slack") that the Slack realm documents:
//   - free words, all of them (implicit AND), case-insensitive in any script (Cyrillic, Greek, …, after
//     Unicode NFKC folding); a word also finds its short inflections (`mockup` finds "mockups", `макет`
//     finds "макеты": up to two more letters), and `word*` finds any word it begins;
//   - "quoted phrases" (also “curly” quotes): those words, consecutive, exactly;
//   - `-x` excludes a word, a phrase or a modifier;
//   - in:#channel, in:channel, in:<#C…> or in:<#C…|name> (by name or id);
//   - from:@user, from:user, from:<@U…> (by handle or id);
//   - has:file, has:link, has:reaction, has::emoji: (a reaction by that name), has:pin; is:thread;
//   - before:, after:, on: with YYYY-MM-DD (UTC days; before and after exclude the day itself), and during:
//     with YYYY-MM-DD, YYYY-MM, YYYY, a month's English name (its latest occurrence), today or yesterday.
// Like Slack it never rejects a query for its syntax: an unknown modifier or a value it cannot read is
// searched as plain words; an unclosed quote ends with the query.

/** One message as the matcher sees it. */
export type SearchableSlackMessage = {
  text: string;
  /** Slack's message timestamp ("1732440600.000100"): seconds since the epoch. */
  ts: string;
  channel: { id: string; name: string };
  user: { id: string; name: string };
  fileNames: string[];
  reactions: string[];
  pinned?: boolean;
  /** A thread's parent (with replies) or one of its replies. */
  inThread: boolean;
};

type Node = { neg: boolean; test: (m: Indexed) => boolean; words?: string[] };
type Indexed = { m: SearchableSlackMessage; tokens: string[]; day: string };

const fold = (s: string) => s.normalize("NFKC").toLocaleLowerCase("und");
export const wordsOf = (s: string): string[] => fold(s).match(/[\p{L}\p{N}_]+/gu) ?? [];

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

/** A query word against a message word: equal, a short inflection of it, or (with `*`) any word it begins. */
function wordMatches(query: string, token: string): boolean {
  if (query.endsWith("*")) return token.startsWith(query.slice(0, -1));
  return token === query || (query.length >= 3 && token.startsWith(query) && token.length - query.length <= 2);
}

function dayOf(ts: string): string {
  const seconds = Number(ts.split(".")[0]);
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

const isDay = (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v);

/** The predicate for `during:<value>` over a message's UTC day, or null when the value is not understood. */
function during(value: string, now: number): ((day: string) => boolean) | null {
  const v = value.toLowerCase();
  const today = new Date(now).toISOString().slice(0, 10);
  if (v === "today") return (d) => d === today;
  if (v === "yesterday") {
    const y = new Date(now - 86_400_000).toISOString().slice(0, 10);
    return (d) => d === y;
  }
  if (isDay(v)) return (d) => d === v;
  if (/^\d{4}-\d{2}$/.test(v) && Number(v.slice(5)) >= 1 && Number(v.slice(5)) <= 12) return (d) => d.startsWith(`${v}-`);
  if (/^\d{4}$/.test(v)) return (d) => d.startsWith(`${v}-`);
  const month = MONTHS.findIndex((name) => name === v || (v.length >= 3 && name.startsWith(v)));
  if (month >= 0) {
    const current = new Date(now);
    const year = month > current.getUTCMonth() ? current.getUTCFullYear() - 1 : current.getUTCFullYear();
    const prefix = `${year}-${String(month + 1).padStart(2, "0")}-`;
    return (d) => d.startsWith(prefix);
  }
  return null;
}

/** The query's pieces: quoted phrases and whitespace-separated words, each maybe negated. */
function lex(query: string): { neg: boolean; text: string; quoted: boolean }[] {
  const out: { neg: boolean; text: string; quoted: boolean }[] = [];
  const q = query.replace(/[“”„]/g, '"');
  let i = 0;
  while (i < q.length) {
    while (i < q.length && /\s/.test(q[i]!)) i++;
    if (i >= q.length) break;
    let neg = false;
    if (q[i] === "-" && i + 1 < q.length && !/\s/.test(q[i + 1]!)) {
      neg = true;
      i++;
    }
    if (q[i] === '"') {
      const end = q.indexOf('"', i + 1);
      const text = end < 0 ? q.slice(i + 1) : q.slice(i + 1, end);
      i = end < 0 ? q.length : end + 1;
      out.push({ neg, text, quoted: true });
      continue;
    }
    let j = i;
    while (j < q.length && !/\s/.test(q[j]!)) j++;
    out.push({ neg, text: q.slice(i, j), quoted: false });
    i = j;
  }
  return out;
}

const unwrap = (v: string, sigil: "#" | "@") => {
  const ref = new RegExp(`^<${sigil}([A-Z0-9]+)(?:\\|([^>]*))?>$`).exec(v);
  if (ref) return { id: ref[1]!, name: ref[2] ?? null };
  return { id: null, name: fold(v.startsWith(sigil) ? v.slice(1) : v) };
};

function modifier(key: string, value: string, now: number): ((m: Indexed) => boolean) | null {
  switch (key) {
    case "in": {
      const c = unwrap(value, "#");
      if (!c.id && !c.name) return null;
      return ({ m }) => (c.id ? m.channel.id === c.id : fold(m.channel.name) === c.name || m.channel.id === value);
    }
    case "from": {
      const u = unwrap(value, "@");
      if (!u.id && !u.name) return null;
      return ({ m }) => (u.id ? m.user.id === u.id : fold(m.user.name) === u.name || m.user.id === value);
    }
    case "has": {
      const v = value.toLowerCase();
      if (v === "file" || v === "files") return ({ m }) => m.fileNames.length > 0;
      if (v === "link" || v === "links") return ({ m }) => /https?:\/\/|<https?:/i.test(m.text);
      if (v === "reaction" || v === "reactions") return ({ m }) => m.reactions.length > 0;
      if (v === "pin") return ({ m }) => m.pinned === true;
      const emoji = /^:([a-z0-9_+'-]+):$/.exec(v);
      if (emoji) return ({ m }) => m.reactions.includes(emoji[1]!);
      return null;
    }
    case "is":
      return value.toLowerCase() === "thread" ? ({ m }) => m.inThread : null;
    case "before":
      return isDay(value) ? ({ day }) => day < value : null;
    case "after":
      return isDay(value) ? ({ day }) => day > value : null;
    case "on":
      return isDay(value) ? ({ day }) => day === value : null;
    case "during": {
      const test = during(value, now);
      return test ? ({ day }) => test(day) : null;
    }
    default:
      return null;
  }
}

function phrase(words: string[]): (m: Indexed) => boolean {
  return ({ tokens }) => {
    for (let i = 0; i + words.length <= tokens.length; i++) if (words.every((w, k) => tokens[i + k] === w)) return true;
    return false;
  };
}

export type SlackQuery = {
  /** Whether the message answers the query. */
  matches: (m: SearchableSlackMessage) => boolean;
  /** How well it answers (the number of times the query's free words occur): Slack's `sort=score`. */
  score: (m: SearchableSlackMessage) => number;
};

export function slackQuery(query: string, opts: { now?: number } = {}): SlackQuery {
  const now = opts.now ?? Date.now();
  const nodes: Node[] = [];
  for (const piece of lex(query)) {
    if (piece.quoted) {
      const words = wordsOf(piece.text);
      if (words.length) nodes.push({ neg: piece.neg, test: phrase(words), words });
      continue;
    }
    const mod = /^([a-z_]+):(.+)$/i.exec(piece.text);
    const test = mod ? modifier(mod[1]!.toLowerCase(), mod[2]!, now) : null;
    if (test) {
      nodes.push({ neg: piece.neg, test });
      continue;
    }
    // A plain word (or an unreadable modifier, searched as its words); `word*` keeps its wildcard.
    const star = piece.text.endsWith("*");
    const words = wordsOf(piece.text);
    if (!words.length) continue;
    if (star) words[words.length - 1] += "*";
    if (words.length === 1) {
      const w = words[0]!;
      nodes.push({ neg: piece.neg, test: ({ tokens }) => tokens.some((t) => wordMatches(w, t)), words });
    } else nodes.push({ neg: piece.neg, test: phrase(words.map((w) => w.replace(/\*$/, ""))), words });
  }
  const index = (m: SearchableSlackMessage): Indexed => ({ m, tokens: [...wordsOf(m.text), ...m.fileNames.flatMap(wordsOf)], day: dayOf(m.ts) });
  return {
    matches: (m) => {
      const x = index(m);
      return nodes.every((n) => n.test(x) !== n.neg);
    },
    score: (m) => {
      const x = index(m);
      let score = 0;
      for (const n of nodes) if (!n.neg && n.words) for (const w of n.words) score += x.tokens.filter((t) => wordMatches(w, t)).length;
      return score;
    },
  };
}
