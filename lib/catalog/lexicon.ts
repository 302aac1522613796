// Everyday words for API actions and the things APIs name, for capability search (lib/catalog/search.ts).
//
// Source: curated by hand for Realmgate. The canonical words are the verbs and nouns REST API operation
// summaries use (GitHub's REST API, the RestBench TMDB and Spotify documents in bench/restbench/, RFC 9110's method
// semantics); the other words of each group are the everyday words people use for them, as in the requests of
// bench/search-queries.json and RestBench (dev halves only). Every group is applied to documents and queries
// alike, after lemmatizing (wink-lemmatizer), so a group's words are given here as lemmas.
//
// Keep a group narrow: a word that belongs to two groups ("show" lists and gets) goes to the one its requests
// mean most often, or to both (a word may stand for several canonical words). Leave out words an API gives a
// meaning of its own: "write" (write access, a permission) is not create, "profile" (a community health
// profile) is not user, "start" (start a codespace) is not play.

/** Canonical word → the everyday words that stand for it. */
export const LEXICON: Record<string, string[]> = {
  // Actions (HTTP verbs and what operation summaries call them).
  delete: ["remove", "destroy", "erase", "drop", "discard", "purge", "wipe", "trash"],
  create: ["add", "new", "make", "leave", "post", "publish", "open", "submit", "compose", "register", "generate"],
  update: ["edit", "modify", "change", "rename", "alter", "adjust", "tweak", "amend", "revise"],
  get: ["fetch", "retrieve", "read", "view", "see", "obtain", "inspect", "detail", "info", "information"],
  list: ["show", "enumerate", "browse", "which"],
  search: ["find", "lookup", "seek", "locate", "query"],
  star: ["favorite", "favourite", "bookmark"],
  save: ["favorite", "favourite", "bookmark"],
  follow: ["subscribe"],
  unfollow: ["unsubscribe"],
  play: ["resume", "listen"],
  pause: ["halt"],
  // Things.
  user: ["person", "people", "account"],
  // "my", "me": the caller, which REST APIs call the authenticated (or current) user.
  authenticated: ["my", "me", "mine", "myself"],
  repository: ["repo", "repos"],
  issue: ["ticket", "bug"],
  organization: ["org", "orgs", "organisation"],
  configuration: ["config", "settings", "setting"],
  environment: ["env"],
  movie: ["film"],
  tv: ["series", "television", "sitcom"],
  credit: ["cast", "crew", "actor", "actress", "director", "directed", "acted"],
  track: ["song", "tune"],
  image: ["picture", "photo", "poster", "logo", "backdrop"],
  review: ["opinion", "critique"],
  recommendation: ["suggest", "suggestion", "recommend"],
};

/**
 * Phrases (lowercase words in a row) that stand for other words, applied to text before its words are processed:
 * `logged in` is the caller, not a log.
 */
export const PHRASES: [string[], string[]][] = [
  [["logged", "in"], ["authenticated"]],
  [["signed", "in"], ["authenticated"]],
  [["who", "am", "i"], ["authenticated", "user"]],
  [["current", "user"], ["authenticated", "user"]],
  [["look", "up"], ["search"]],
  [["looking", "up"], ["search"]],
  [["get", "rid", "of"], ["delete"]],
  [["take", "off"], ["remove"]],
  [["set", "up"], ["create"]],
];

/** Short forms that stand for several words. */
export const SHORT_FORMS: Record<string, string[]> = {
  pr: ["pull", "request"],
  prs: ["pull", "request"],
};
