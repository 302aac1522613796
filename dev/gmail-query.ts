// Development fixture: the search query language of the local Gmail-compatible server (dev/fake-gmail.ts),
// the part of Gmail's that the mail realm documents (lib/realms/mail/manifest.ts, its rules), as Gmail's own
// search operators page describes it:
//   - words anywhere in the message, all of them (implicit AND; an uppercase AND says the same);
//     a word also finds its singular or plural form (`invoices` finds "invoice" and the reverse);
//   - "exact phrase" (those words, consecutive, in no other form);
//   - `a OR b` (uppercase; it binds tighter than AND: `a b OR c` is `a (b OR c)`) and `{a b}`, either one;
//   - `-x` excludes (a word, a phrase, an operator or a group);
//   - `( … )` groups, also after an operator: `subject:(lunch friday)`;
//   - from:, to: (To and Cc), subject:, label: (name or id, hyphens for spaces), has:attachment,
//     is:unread|read|starred|important, in:inbox|sent|trash|spam|anywhere (trash and spam are left out
//     unless the query names one of them or anywhere), newer_than:/older_than: with d, m or y.
// Gmail never rejects a query for its syntax, and neither does this: an unknown operator or value
// (`after:2026/01/01`, `size:10`, `newer_than:3h`, `has:drive`) is searched as plain words, a dangling OR
// or AND is the word, an unclosed quote, parenthesis or brace ends with the query, a stray closing one is
// ignored.
import pluralize from "pluralize";

/** One message as the matcher sees it. */
export type SearchableMessage = {
  from: string;
  to: string;
  cc: string;
  subject: string;
  body: string;
  attachmentNames: string[];
  labels: { id: string; name: string }[];
  /** Milliseconds since the epoch. */
  internalDate: number;
};

/** A leaf: a word or phrase, in one field (null: anywhere), exact or in any singular/plural form. */
type Term = { t: "term"; field: Field | null; words: string[]; exact: boolean };
type Test = { t: "test"; test: (m: Indexed, now: number) => boolean; scope?: "trash" | "spam" | "anywhere" };
export type QueryNode = Term | Test | { t: "and" | "or"; of: QueryNode[] } | { t: "not"; of: QueryNode };

/**
 * The operators understood, each with the values it takes (null: any text; for newer_than/older_than a count
 * with d, m or y). The mail realm's rules name exactly these (lib/realms/mail/adapter.test.ts checks).
 */
export const SUPPORTED_OPERATORS = {
  from: null,
  to: null,
  subject: null,
  label: null,
  has: ["attachment"],
  is: ["unread", "read", "starred", "important"],
  in: ["inbox", "sent", "trash", "spam", "anywhere"],
  newer_than: null,
  older_than: null,
} as const satisfies Record<string, readonly string[] | null>;

type Field = "from" | "to" | "subject";
const TEXT_FIELDS = new Set<string>(["from", "to", "subject"]);
const OPERATORS = new Set<string>(Object.keys(SUPPORTED_OPERATORS));

const wordsOf = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
/** The word's singular: two words are the same word when their singulars are equal. */
const forms = new Map<string, string>();
const formOf = (w: string) => {
  let f = forms.get(w);
  if (f === undefined) {
    if (forms.size > 50_000) forms.clear();
    forms.set(w, (f = pluralize.singular(w)));
  }
  return f;
};

// --- parsing --------------------------------------------------------------------------------------

const BREAK = /[\s(){}"]/;
type Piece = QueryNode | "OR" | "AND";

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  /** A whole query, or everything up to the closing `)`. */
  conjunction(field: string | null, closing: ")" | null): QueryNode | null {
    const pieces: Piece[] = [];
    for (;;) {
      this.skipSpace();
      const c = this.s[this.i];
      if (c === undefined) break;
      if (c === ")" && closing) break;
      if (c === ")" || c === "}") {
        this.i++; // a stray closing bracket: ignored
        continue;
      }
      const p = this.unit(field, true);
      if (p) pieces.push(p);
    }
    return fold(pieces);
  }

  /** One operand (or the bare words OR / AND, where they may be operators). */
  private unit(field: string | null, operators: boolean): Piece | null {
    this.skipSpace();
    const c = this.s[this.i];
    if (c === undefined) return null;
    if (c === "-" && this.s[this.i + 1] !== undefined && !/\s/.test(this.s[this.i + 1]!)) {
      this.i++;
      const inner = this.unit(field, false);
      return inner && inner !== "OR" && inner !== "AND" ? { t: "not", of: inner } : null;
    }
    if (c === "(") {
      this.i++;
      const inner = this.conjunction(field, ")");
      if (this.s[this.i] === ")") this.i++;
      return inner;
    }
    if (c === "{") {
      this.i++;
      const of: QueryNode[] = [];
      for (;;) {
        this.skipSpace();
        const d = this.s[this.i];
        if (d === undefined) break;
        if (d === "}") {
          this.i++;
          break;
        }
        if (d === ")") {
          this.i++;
          continue;
        }
        const p = this.unit(field, false);
        if (p && p !== "OR" && p !== "AND") of.push(p);
      }
      return of.length ? { t: "or", of } : null;
    }
    if (c === '"') return leaf(field, this.quoted(), true);
    const start = this.i;
    while (this.i < this.s.length && !BREAK.test(this.s[this.i]!)) this.i++;
    const bare = this.s.slice(start, this.i);
    if (operators && (bare === "OR" || bare === "AND")) return bare;
    const op = /^([A-Za-z_]+):(.*)$/s.exec(bare);
    if (op && OPERATORS.has(op[1]!.toLowerCase())) {
      const name = op[1]!.toLowerCase();
      if (op[2]) return operator(name, op[2], false);
      const next = this.s[this.i];
      if (next === '"') return operator(name, this.quoted(), true);
      if (next === "(" || next === "{") return this.unit(name, false);
    }
    return leaf(field, bare, false);
  }

  private quoted(): string {
    const end = this.s.indexOf('"', this.i + 1);
    const text = this.s.slice(this.i + 1, end < 0 ? undefined : end);
    this.i = end < 0 ? this.s.length : end + 1;
    return text;
  }

  private skipSpace() {
    while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i++;
  }
}

/** Pieces side by side are ANDed; OR joins the operands on either side of it first. */
function fold(pieces: Piece[]): QueryNode | null {
  const groups: QueryNode[][] = [];
  let joinNext = false;
  pieces.forEach((p, k) => {
    const operand = (x: Piece): x is QueryNode => x !== "OR" && x !== "AND";
    if (p === "OR" || p === "AND") {
      const between = groups.length > 0 && k + 1 < pieces.length && operand(pieces[k + 1]!);
      if (!between) groups.push([term(null, p, false)!]); // a dangling OR or AND is the word
      else if (p === "OR") joinNext = true; // AND between operands is the same as a space
      return;
    }
    if (joinNext) groups[groups.length - 1]!.push(p);
    else groups.push([p]);
    joinNext = false;
  });
  const of = groups.map((g) => (g.length === 1 ? g[0]! : ({ t: "or", of: g } as QueryNode)));
  return of.length === 0 ? null : of.length === 1 ? of[0]! : { t: "and", of };
}

/** A word or phrase inside an operator's group (`label:{Travel Receipts}`), or anywhere outside one. */
function leaf(field: string | null, text: string, exact: boolean): QueryNode | null {
  return field === null ? term(null, text, exact) : operator(field, text, exact);
}

/** Words in a field (or anywhere); nothing when the text has no words (punctuation alone constrains nothing). */
function term(field: string | null, text: string, exact: boolean): Term | null {
  const words = wordsOf(text);
  if (!words.length) return null;
  return { t: "term", field: field !== null && TEXT_FIELDS.has(field) ? (field as Field) : null, words, exact };
}

const DAY = 86_400_000;

function operator(name: string, value: string, quoted: boolean): QueryNode | null {
  if (TEXT_FIELDS.has(name)) return term(name, value, quoted);
  const v = value.trim().toLowerCase();
  const values: readonly string[] | null = SUPPORTED_OPERATORS[name as keyof typeof SUPPORTED_OPERATORS];
  if (values && !values.includes(v)) return term(null, `${name}:${value}`, quoted);
  const test = (fn: Test["test"], scope?: Test["scope"]): Test => ({ t: "test", test: fn, scope });
  switch (name) {
    case "label": {
      const norm = (s: string) => s.trim().toLowerCase().replace(/[\s/_-]+/g, "-");
      return test((m) => m.labels.some((l) => norm(l.name) === norm(v) || l.id.toLowerCase() === v));
    }
    case "has":
      if (v === "attachment") return test((m) => m.attachmentNames.length > 0);
      break;
    case "is": {
      const flag = { unread: "UNREAD", starred: "STARRED", important: "IMPORTANT" }[v];
      if (flag) return test((m) => m.labelIds.has(flag));
      if (v === "read") return test((m) => !m.labelIds.has("UNREAD"));
      break;
    }
    case "in":
      if (v === "anywhere") return test(() => true, "anywhere");
      if (v === "inbox" || v === "sent") return test((m) => m.labelIds.has(v.toUpperCase()));
      if (v === "trash" || v === "spam") return test((m) => m.labelIds.has(v.toUpperCase()), v);
      break;
    case "newer_than":
    case "older_than": {
      const n = /^(\d{1,6})([dmy])$/.exec(v);
      if (!n) break;
      const since = (now: number) => {
        const count = Number(n[1]);
        if (n[2] === "d") return now - count * DAY;
        const d = new Date(now);
        if (n[2] === "m") d.setUTCMonth(d.getUTCMonth() - count);
        else d.setUTCFullYear(d.getUTCFullYear() - count);
        return d.getTime();
      };
      return name === "newer_than" ? test((m, now) => m.internalDate > since(now)) : test((m, now) => m.internalDate < since(now));
    }
  }
  // An operator Gmail would not understand this way: its text is searched as words.
  return term(null, `${name}:${value}`, quoted);
}

/** The query as a tree; null when it asks nothing (every message matches). Never throws. */
export function parseGmailQuery(q: string): QueryNode | null {
  return new Parser(q).conjunction(null, null);
}

// --- matching -------------------------------------------------------------------------------------

type Words = { exact: string[]; forms: string[] };
type Indexed = { labels: SearchableMessage["labels"]; labelIds: Set<string>; attachmentNames: string[]; internalDate: number; fields: Record<Field | "body" | "files", Words[]> };

function indexed(m: SearchableMessage): Indexed {
  const w = (s: string): Words => {
    const exact = wordsOf(s);
    return { exact, forms: exact.map(formOf) };
  };
  return {
    labels: m.labels,
    labelIds: new Set(m.labels.map((l) => l.id)),
    attachmentNames: m.attachmentNames,
    internalDate: m.internalDate,
    fields: { from: [w(m.from)], to: [w(m.to), w(m.cc)], subject: [w(m.subject)], body: [w(m.body)], files: m.attachmentNames.map(w) },
  };
}

/** The term's words, consecutive, somewhere in one of these texts. */
function hasPhrase(texts: Words[], t: Term): boolean {
  const want = t.exact ? t.words : t.words.map(formOf);
  return texts.some((text) => {
    const have = t.exact ? text.exact : text.forms;
    for (let i = 0; i + want.length <= have.length; i++) if (want.every((w, j) => have[i + j] === w)) return true;
    return false;
  });
}

function evaluate(n: QueryNode, m: Indexed, now: number): boolean {
  switch (n.t) {
    case "term":
      return hasPhrase(n.field ? m.fields[n.field] : Object.values(m.fields).flat(), n);
    case "test":
      return n.test(m, now);
    case "and":
      return n.of.every((x) => evaluate(x, m, now));
    case "or":
      return n.of.some((x) => evaluate(x, m, now));
    case "not":
      return !evaluate(n.of, m, now);
  }
}

function scopes(n: QueryNode | null, out = new Set<string>()): Set<string> {
  if (!n) return out;
  if (n.t === "test" && n.scope) out.add(n.scope);
  if (n.t === "and" || n.t === "or") for (const x of n.of) scopes(x, out);
  if (n.t === "not") scopes(n.of, out);
  return out;
}

/**
 * A predicate for one query, as Gmail's search would answer it: messages in the trash or spam are left out
 * unless the query names in:trash, in:spam or in:anywhere. `now` anchors newer_than/older_than.
 */
export function gmailQueryMatcher(q: string, now: number = Date.now()): (m: SearchableMessage) => boolean {
  const tree = parseGmailQuery(q);
  const named = scopes(tree);
  return (m) => {
    const ids = new Set(m.labels.map((l) => l.id));
    if (!named.has("anywhere") && ((ids.has("TRASH") && !named.has("trash")) || (ids.has("SPAM") && !named.has("spam")))) return false;
    return tree === null || evaluate(tree, indexed(m), now);
  };
}
