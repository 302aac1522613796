// Notes on what a document tells its caller to do that Realmgate does itself. Documents are written for people
// building HTTP requests ("This value should be URI encoded", "Set the Content-Type header to
// application/json"); an agent calling through Realmgate passes plain values and never sets those headers, and
// following such advice would double-encode a query or fail a call. The contract carries a note instead of
// leaving the agent to guess.

/** The note on a parameter whose description asks the caller to percent-encode it. */
export const ENCODE_NOTE = "Realmgate encodes this value; pass it plain.";

const ENCODE = /\b(?:url|uri|percent)[-\s]?(?:en)?coded?\b|\b(?:url|uri|percent)[-\s]?encoding\b|\bencodeURI(?:Component)?\b|\bescape[sd]?\b[^.]{0,30}\b(?:url|uri)\b/i;

/** Headers Realmgate sets on every call, and who sets them. */
const OWNED_HEADERS: { name: string; re: RegExp; note: string }[] = [
  { name: "Authorization", re: /\bauthori[sz]ation\b/i, note: "Realmgate sends the realm's credential itself (the Authorization header or the key the owner configured); do not pass a token." },
  { name: "Content-Type", re: /\bcontent-type\b/i, note: "Realmgate sets the Content-Type header from the contract; do not pass it." },
  { name: "Accept", re: /\baccept\b(?!ed|s\b|able|ing|ance)/i, note: "Realmgate sets the Accept header from the contract; do not pass it." },
  { name: "Content-Length", re: /\bcontent-length\b/i, note: "Realmgate sets Content-Length from the body; do not pass it." },
  { name: "Host", re: /\bhost\b\s+header|\bheader\b[^.]{0,20}\bhost\b/i, note: "Realmgate sets the Host header from the realm's base URL." },
];

/** A sentence that tells the caller to put something in a request header. */
const HEADER_INSTRUCTION = /\bheaders?\b/i;
const INSTRUCTION_VERB = /\b(?:set|send|sent|include|included|pass|passed|add|provide|provided|specify|supply|use|must|should|required?)\b/i;

const sentences = (text: string) => text.split(/(?<=[.!?])\s+|\n+/).map((s) => s.trim()).filter(Boolean);

/** The note for a parameter's description, or null: encoding advice on a path, query or cookie value. */
export function parameterNote(description: string | undefined, location: string): string | null {
  if (!description || location === "header") return null;
  return ENCODE.test(description) ? ENCODE_NOTE : null;
}

/**
 * Notes for an operation's description (and its parameters'): one per header Realmgate owns that the text
 * tells the caller to set. In a fixed order, each at most once.
 */
export function headerNotes(...texts: (string | undefined)[]): string[] {
  const found = new Set<string>();
  for (const text of texts) {
    if (!text) continue;
    for (const s of sentences(text)) {
      if (!HEADER_INSTRUCTION.test(s) || !INSTRUCTION_VERB.test(s)) continue;
      for (const h of OWNED_HEADERS) if (h.re.test(s)) found.add(h.name);
    }
  }
  return OWNED_HEADERS.filter((h) => found.has(h.name)).map((h) => h.note);
}
