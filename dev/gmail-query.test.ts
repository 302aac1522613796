// The local Gmail-compatible server's query language (dev/gmail-query.ts): each operator the mail realm
// documents, their combinations, singular/plural forms, and queries Gmail would not reject but that match nothing.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { gmailQueryMatcher, parseGmailQuery, SUPPORTED_OPERATORS, type SearchableMessage } from "./gmail-query";

const NOW = Date.parse("2026-06-15T12:00:00Z");
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const LABELS: Record<string, string> = { Label_1: "Travel", Label_2: "Receipts", Label_3: "My Family" };
const msg = (key: string, m: Partial<Omit<SearchableMessage, "labels">> & { labels?: string[]; ago: number }): [string, SearchableMessage] => [
  key,
  {
    from: m.from ?? "",
    to: m.to ?? "Alice <alice@acme.test>",
    cc: m.cc ?? "",
    subject: m.subject ?? "",
    body: m.body ?? "",
    attachmentNames: m.attachmentNames ?? [],
    labels: (m.labels ?? []).map((id) => ({ id, name: LABELS[id] ?? id })),
    internalDate: NOW - m.ago,
  },
];

const MAILBOX = [
  msg("agenda", { from: "Dana Ortiz <dana@northwind.test>", subject: "Q3 planning — agenda draft", body: "Here is a first draft of the Q3 planning agenda. Could you add anything I missed?", labels: ["INBOX", "UNREAD", "IMPORTANT"], ago: 50 * HOUR }),
  msg("reply", { from: "Alice <alice@acme.test>", to: "Dana Ortiz <dana@northwind.test>", subject: "Re: Q3 planning — agenda draft", body: "Thanks Dana, looks good.", labels: ["SENT"], ago: 26 * HOUR }),
  msg("invoice", { from: "CloudCo Billing <billing@cloudco.test>", subject: "Your invoice for September", body: "Your invoice for September is attached. Amount due: 240.00 EUR.", attachmentNames: ["invoice-september.csv"], labels: ["INBOX", "Label_2"], ago: 5 * DAY }),
  msg("card", { from: "CloudCo Billing <billing@cloudco.test>", subject: "Your card on file expires soon", body: "Update it to keep your billing running.", labels: ["INBOX"], ago: 12 * DAY }),
  msg("lunch", { from: "Lee Park <lee@acme.test>", subject: "Lunch on Friday?", body: "Are you free for lunch on Friday? The new ramen place opened next to the office.", labels: ["INBOX", "UNREAD", "STARRED"], ago: 3 * HOUR }),
  msg("itinerary", { from: "Travel desk <travel@acme.test>", subject: "Itinerary: Lisbon offsite", body: "Flights on the 14th, hotel near the river.", attachmentNames: ["itinerary.txt"], labels: ["INBOX", "Label_1"], ago: 8 * DAY }),
  msg("dinner", { from: "Mom <mom@home.test>", cc: "Sam Lee <sam@acme.test>", subject: "Family dinners", body: "Sunday dinners are back.", labels: ["INBOX", "Label_3"], ago: 65 * DAY }),
  msg("trash", { from: "CloudCo Billing <billing@cloudco.test>", subject: "Old invoices", body: "Your invoices from last year.", labels: ["TRASH"], ago: 400 * DAY }),
  msg("spam", { from: "Prize desk <win@prize.test>", subject: "You won a prize", body: "Claim your invoice refund now.", labels: ["SPAM", "INBOX"], ago: 1 * DAY }),
];

/** The keys of the messages the query finds, in mailbox order. */
const found = (q: string) => {
  const match = gmailQueryMatcher(q, NOW);
  return MAILBOX.filter(([, m]) => match(m)).map(([k]) => k);
};

describe("the fake Gmail query language", () => {
  it("finds whole words anywhere (sender, recipients, subject, body, attachment names), not parts of words", () => {
    expect(found("lunch")).toEqual(["lunch"]);
    expect(found("ramen")).toEqual(["lunch"]);
    expect(found("northwind")).toEqual(["agenda", "reply"]);
    expect(found("csv")).toEqual(["invoice"]);
    expect(found("LUNCH")).toEqual(["lunch"]);
    expect(found("invoic")).toEqual([]);
    expect(found("plan")).toEqual([]);
  });

  it("a word finds its singular and plural forms, both ways", () => {
    expect(found("invoices")).toEqual(["invoice"]);
    expect(found("invoice in:anywhere")).toEqual(["invoice", "trash", "spam"]);
    expect(found("itineraries")).toEqual(["itinerary"]);
    expect(found("dinner")).toEqual(["dinner"]);
    expect(found("lunches")).toEqual(["lunch"]);
    expect(found("subject:invoices")).toEqual(["invoice"]);
  });

  it("ANDs the terms, with or without AND", () => {
    expect(found("agenda draft")).toEqual(["agenda", "reply"]);
    expect(found("agenda AND thanks")).toEqual(["reply"]);
    expect(found("agenda lunch")).toEqual([]);
  });

  it("OR (uppercase) and {…} find either; OR binds tighter than AND; lowercase or is a word", () => {
    expect(found("invoice OR billing")).toEqual(["invoice", "card"]);
    expect(found("lunch OR itinerary OR dinner")).toEqual(["lunch", "itinerary", "dinner"]);
    expect(found("{lunch itinerary}")).toEqual(["lunch", "itinerary"]);
    expect(found("friday lunch OR itinerary")).toEqual(["lunch"]);
    expect(found("from:lee OR from:dana")).toEqual(["agenda", "lunch"]);
    expect(found("lunch or itinerary")).toEqual([]);
  });

  it("quotes ask for the exact words, consecutive", () => {
    expect(found('"first draft"')).toEqual(["agenda"]);
    expect(found('"draft first"')).toEqual([]);
    expect(found('"invoices"')).toEqual([]);
    expect(found('subject:"planning agenda"')).toEqual(["agenda", "reply"]);
  });

  it("-x excludes a word, a phrase, an operator or a group", () => {
    expect(found("agenda -thanks")).toEqual(["agenda"]);
    expect(found('agenda -"first draft"')).toEqual(["reply"]);
    expect(found("from:billing -subject:invoice")).toEqual(["card"]);
    expect(found("label:inbox -(lunch OR itinerary OR dinner)")).toEqual(["agenda", "invoice", "card"]);
    expect(found("-{billing dana lunch travel dinner}")).toEqual([]);
  });

  it("parentheses group, also after an operator", () => {
    expect(found("(lunch OR itinerary) has:attachment")).toEqual(["itinerary"]);
    expect(found("subject:(planning re)")).toEqual(["reply"]);
    expect(found("subject:(lunch OR itinerary)")).toEqual(["lunch", "itinerary"]);
    expect(found("from:(billing OR lee)")).toEqual(["invoice", "card", "lunch"]);
  });

  it("from:, to: (To and Cc) and subject: look only in their header", () => {
    expect(found("from:dana")).toEqual(["agenda"]);
    expect(found("from:dana@northwind.test")).toEqual(["agenda"]);
    expect(found("from:northwind.test")).toEqual(["agenda"]);
    expect(found("to:dana")).toEqual(["reply"]);
    expect(found("to:sam@acme.test")).toEqual(["dinner"]);
    expect(found("subject:lunch")).toEqual(["lunch"]);
    expect(found("subject:ramen")).toEqual([]);
    expect(found("from:lunch")).toEqual([]);
  });

  it("label: by name (any case, hyphens for spaces) or id; has:attachment; is:", () => {
    expect(found("label:travel")).toEqual(["itinerary"]);
    expect(found("label:Receipts")).toEqual(["invoice"]);
    expect(found("label:my-family")).toEqual(["dinner"]);
    expect(found('label:"My Family"')).toEqual(["dinner"]);
    expect(found("label:Label_1")).toEqual(["itinerary"]);
    expect(found("label:{travel receipts}")).toEqual(["invoice", "itinerary"]);
    expect(found("label:nonexistent")).toEqual([]);
    expect(found("has:attachment")).toEqual(["invoice", "itinerary"]);
    expect(found("is:unread")).toEqual(["agenda", "lunch"]);
    expect(found("is:starred")).toEqual(["lunch"]);
    expect(found("is:important")).toEqual(["agenda"]);
    expect(found("is:read label:inbox")).toEqual(["invoice", "card", "itinerary", "dinner"]);
  });

  it("in: names a place; trash and spam are left out unless the query names them or anywhere", () => {
    expect(found("in:sent")).toEqual(["reply"]);
    expect(found("in:inbox billing")).toEqual(["invoice", "card"]);
    expect(found("invoices")).not.toContain("trash");
    expect(found("in:trash")).toEqual(["trash"]);
    expect(found("in:spam")).toEqual(["spam"]);
    expect(found("prize")).toEqual([]);
    expect(found("prize in:anywhere")).toEqual(["spam"]);
  });

  it("newer_than: and older_than: count days, months and years back from now", () => {
    expect(found("newer_than:7d")).toEqual(["agenda", "reply", "invoice", "lunch"]);
    expect(found("newer_than:1d")).toEqual(["lunch"]);
    expect(found("older_than:7d")).toEqual(["card", "itinerary", "dinner"]);
    expect(found("newer_than:1m")).toEqual(["agenda", "reply", "invoice", "card", "lunch", "itinerary"]);
    expect(found("newer_than:3m older_than:2m")).toEqual(["dinner"]);
    expect(found("older_than:1y in:anywhere")).toEqual(["trash"]);
    expect(found("newer_than:1y").length).toBe(7);
    expect(found("newer_than:7d -newer_than:2d")).toEqual(["agenda", "invoice"]);
  });

  it("never rejects a query: what it does not understand is searched as words, so it matches nothing here", () => {
    for (const q of ["newer_than:3h", "newer_than:soon", "size:10", "has:drive", "is:muted", "in:chats", "zebra", "from:dana from:lee", "invoice OR", "AND", "lunch AND"]) {
      expect(found(q), q).toEqual([]);
    }
    // Unbalanced brackets and quotes close at the end of the query; a stray closing one is ignored.
    expect(found("(lunch")).toEqual(["lunch"]);
    expect(found("lunch)")).toEqual(["lunch"]);
    expect(found("{lunch itinerary")).toEqual(["lunch", "itinerary"]);
    expect(found('"first draft')).toEqual(["agenda"]);
    expect(found("subject:(lunch")).toEqual(["lunch"]);
  });

  it("an empty query (or one of punctuation only) asks nothing: everything outside trash and spam", () => {
    const all = ["agenda", "reply", "invoice", "card", "lunch", "itinerary", "dinner"];
    expect(found("")).toEqual(all);
    expect(found("   ")).toEqual(all);
    expect(found("- , ()")).toEqual(all);
  });

  it("understands every operator value it declares (none of them falls back to plain words)", () => {
    for (const [op, values] of Object.entries(SUPPORTED_OPERATORS)) {
      for (const v of values ?? [op.endsWith("_than") ? "7d" : "dana"]) {
        const node = parseGmailQuery(`${op}:${v}`);
        expect(node && (node.t === "test" || (node.t === "term" && node.field !== null)), `${op}:${v}`).toBe(true);
      }
    }
  });

  it("answers any string without throwing", () => {
    const [, sample] = MAILBOX[0]!;
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("a", "b", " ", "-", "(", ")", "{", "}", '"', ":", "OR", "AND", "from", "subject", "label", "in", "newer_than", "7d") }), (q) => {
        expect(typeof gmailQueryMatcher(q, NOW)(sample)).toBe("boolean");
      }),
    );
  });
});
