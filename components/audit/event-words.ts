// Every audit event in a sentence a support person reads without a manual, and the details worth showing
// beside it. Pure (server and browser). `eventTable` is keyed by the closed list of events the code records
// (lib/audit/record.ts), so a new event without words fails the typecheck and event-words.test.ts.
import type { AuditEventName } from "@/lib/audit/record";
import type { AuditEventView } from "@/lib/audit/view";
import type { BadgeTone } from "@/components/ui/badge";
import { realmTitle, wordsFor, type Words } from "@/components/realms/words";
import { accountNameText, claimText, filtersText, operationAcrossRealms, providerText, type AuditNames, type FilterLookups } from "./names";

/** How one detail field reads: a count, a list of operation keys, a time, yes/no, a grant scope… */
type FieldKind = "text" | "count" | "operations" | "list" | "time" | "bool" | "scope" | "curation" | "switches" | "suspensions" | "items" | "settings" | "verbatim" | "provider" | "claims" | "filters";
type Field = { key: string; label: string; as?: FieldKind };

export type EventWords = {
  /** The short name ("Realm curated"), used in the filter and as the row's title. */
  label: string;
  /** Who did what: `{who}` the person, agent or Realmgate; `{agent}` the agent it was about; `{realm}`; `{op}`. */
  sentence: string;
  fields: readonly Field[];
};

const opsF: Field = { key: "operations", label: "Operations", as: "operations" };

export const eventTable: Record<AuditEventName, EventWords> = {
  "tool.call": { label: "Tool call", sentence: "{who} called {op}{in realm}", fields: [{ key: "tool", label: "Tool" }, { key: "via", label: "Let in by" }, { key: "replayed", label: "Replayed answer", as: "bool" }, { key: "wall", label: "Stopped by" }, { key: "outside_scope", label: "Outside the grant's scope", as: "list" }, { key: "suspended", label: "Suspended because" }, { key: "why", label: "Why" }] },
  "actor.created": { label: "Agent created", sentence: "{who} created the agent {agent}", fields: [{ key: "name", label: "Name" }, { key: "kind", label: "Kind" }] },
  "actor.revoked": { label: "Agent revoked", sentence: "{who} revoked the agent {agent}", fields: [{ key: "grants_revoked", label: "Grants ended", as: "count" }] },
  "token.issued": { label: "Token issued", sentence: "{who} issued a token for {agent}", fields: [{ key: "expires_at", label: "Expires", as: "time" }] },
  "token.revoked": { label: "Token revoked", sentence: "{who} revoked a token of {agent}", fields: [{ key: "reason", label: "Why" }] },
  "grant.created": { label: "Grant created", sentence: "{who} granted {agent} access{in realm}", fields: [opsF, { key: "all_actions", label: "Every action", as: "bool" }, { key: "resource_scope", label: "Scope", as: "scope" }, { key: "expires_at", label: "Expires", as: "time" }] },
  "grant.revoked": { label: "Grant revoked", sentence: "{who} revoked a grant of {agent}{in realm}", fields: [opsF] },
  "grant.suspended": { label: "Grant suspended", sentence: "Operations of {agent}'s grant{in realm} stopped working because their meaning changed", fields: [{ key: "operations", label: "Suspended", as: "suspensions" }] },
  "grant.migrated": { label: "Grant scope migrated", sentence: "Realmgate rewrote the scope of {agent}'s grant{in realm}", fields: [{ key: "old_scope", label: "Old scope", as: "scope" }, { key: "new_scope", label: "New scope", as: "scope" }] },
  "ceiling.changed": { label: "Workspace ceiling changed", sentence: "{who} changed what agents may do{in realm} for the whole workspace", fields: [{ key: "changes", label: "Switched", as: "switches" }, { key: "open_description", label: "Description open to all agents", as: "bool" }, { key: "selected_only", label: "Agents act only on operations they selected", as: "bool" }] },
  "choice.changed": { label: "Personal choice changed", sentence: "{who} changed what their own agents may do{in realm}", fields: [{ key: "changes", label: "Switched", as: "switches" }] },
  "working_set.changed": { label: "Working set changed", sentence: "{who} removed {op} from {agent}'s working set{in realm}", fields: [{ key: "removed", label: "Tool", as: "verbatim" }, { key: "slot", label: "Slot" }] },
  "tenant.settings_changed": { label: "Workspace settings changed", sentence: "{who} changed the workspace's settings", fields: [{ key: "before", label: "Before", as: "settings" }, { key: "after", label: "After", as: "settings" }] },
  "consent.requested": { label: "Consent requested", sentence: "{who} asked for access{in realm}", fields: [opsF, { key: "named_refs", label: "Objects named", as: "list" }] },
  "consent.approved": { label: "Consent approved", sentence: "{who} approved {agent}'s request{in realm}", fields: [opsF, { key: "items", label: "On what they saw", as: "items" }, { key: "companions", label: "Also granted", as: "operations" }, { key: "expires", label: "For" }] },
  "consent.denied": { label: "Consent denied", sentence: "{who} denied {agent}'s request{in realm}", fields: [opsF, { key: "items", label: "On what they saw", as: "items" }] },
  "url.minted": { label: "File link made", sentence: "{who} made a download link{in realm}", fields: [{ key: "expires_at", label: "Link expires", as: "time" }] },
  "url.redeemed": { label: "File link used", sentence: "{who} downloaded a file{in realm}", fields: [{ key: "size", label: "Bytes", as: "count" }] },
  "api_key.created": { label: "API key created", sentence: "{who} created a personal API key", fields: [{ key: "name", label: "Name" }] },
  "api_key.revoked": { label: "API key revoked", sentence: "{who} revoked a personal API key", fields: [] },
  "sessions.ended": { label: "Signed out everywhere", sentence: "{who} ended all their sessions", fields: [] },
  "account.connected": { label: "Account connected", sentence: "{who} connected an account", fields: [{ key: "label", label: "Account" }, { key: "provider", label: "Provider", as: "provider" }, { key: "claims", label: "Permissions", as: "claims" }] },
  "account.upgraded": { label: "Account permissions raised", sentence: "{who} gave a connected account more permissions", fields: [{ key: "label", label: "Account" }, { key: "provider", label: "Provider", as: "provider" }, { key: "claims", label: "Permissions now", as: "claims" }] },
  "account.reconnected": { label: "Account reconnected", sentence: "{who} reconnected an account", fields: [{ key: "label", label: "Account" }, { key: "provider", label: "Provider", as: "provider" }, { key: "claims", label: "Permissions now", as: "claims" }, { key: "intent", label: "Asked for" }, { key: "removed", label: "Permissions removed", as: "claims" }, { key: "not_removed", label: "Kept by the provider", as: "claims" }] },
  "account.disconnected": { label: "Account disconnected", sentence: "{who} disconnected an account", fields: [{ key: "label", label: "Account" }, { key: "provider", label: "Provider", as: "provider" }, { key: "provider_revocation", label: "Provider's answer" }] },
  "account.needs_reconnect": { label: "Account needs reconnecting", sentence: "A connected account now needs signing in again (seen by {who})", fields: [{ key: "label", label: "Account" }, { key: "provider", label: "Provider", as: "provider" }, { key: "removing", label: "Removing", as: "claims" }, { key: "keeping", label: "Keeping", as: "claims" }] },
  "realm.imported": { label: "Realm imported", sentence: "{who} imported the service {realm}", fields: [{ key: "version", label: "Version" }, { key: "operations", label: "Operations", as: "count" }, { key: "added", label: "Added", as: "count" }, { key: "removed", label: "Removed", as: "count" }, { key: "changed", label: "Changed", as: "count" }, { key: "suspended_grants", label: "Grants suspended", as: "count" }, { key: "credential", label: "Service credential" }, { key: "source", label: "From" }] },
  "realm.curated": { label: "Realm curated", sentence: "{who} curated the operations of {realm}", fields: [{ key: "changes", label: "Changes", as: "curation" }, { key: "change_count", label: "Operations changed", as: "count" }, { key: "suspended_grants", label: "Grants suspended", as: "count" }, { key: "version", label: "Version" }] },
  "remote_provider.token_minted": { label: "Registration token minted", sentence: "{who} made a one-time token for a provider to register itself", fields: [{ key: "expires_at", label: "Valid until", as: "time" }] },
  "remote_provider.registered": { label: "Remote provider registered", sentence: "{who} registered the remote provider {realm}", fields: [{ key: "url", label: "At" }, { key: "via", label: "By" }, { key: "manifest_version", label: "Manifest version" }, { key: "kinds", label: "Kinds", as: "list" }, { key: "actions", label: "Actions", as: "list" }] },
  "remote_provider.manifest_changed": { label: "Provider manifest changed", sentence: "The remote provider {realm} now serves a new manifest", fields: [{ key: "from", label: "From version" }, { key: "to", label: "To version" }] },
  "remote_provider.unavailable": { label: "Provider unavailable", sentence: "The remote provider {realm} was marked unavailable", fields: [{ key: "reason", label: "Why" }, { key: "problems", label: "Problems", as: "list" }] },
  "remote_provider.available": { label: "Provider available again", sentence: "The remote provider {realm} serves a valid manifest again", fields: [{ key: "manifest_version", label: "Manifest version" }] },
  "remote_provider.breaker_opened": { label: "Calls to a provider paused", sentence: "Realmgate stopped calling {realm} for a moment after repeated failures", fields: [{ key: "node", label: "App process" }] },
  "remote_provider.breaker_closed": { label: "Calls to a provider resumed", sentence: "{realm} answered again; calls resumed", fields: [{ key: "node", label: "App process" }] },
  "remote_provider.removed": { label: "Remote provider removed", sentence: "{who} removed the remote provider {realm}", fields: [{ key: "url", label: "Was at" }] },
  "support.viewed": { label: "Support view", sentence: "{who} looked at {view}", fields: [{ key: "filters", label: "Filters", as: "filters" }] },
  "audit.verified": { label: "Audit chain verified", sentence: "{who} checked the audit chain", fields: [{ key: "ok", label: "Intact", as: "bool" }, { key: "checked", label: "Events checked", as: "count" }] },
  "audit.exported": { label: "Audit exported", sentence: "{who} exported the audit trail", fields: [{ key: "format", label: "Format" }, { key: "filters", label: "Filters", as: "filters" }, { key: "max_rows", label: "At most", as: "count" }] },
  "oauth.authorized": { label: "MCP client approved", sentence: "{who} let the MCP client {client} act for them", fields: [{ key: "scope", label: "Scope" }, { key: "grants", label: "Grants", as: "count" }, { key: "expires_at", label: "Expires", as: "time" }, { key: "extended", label: "Extended an earlier approval", as: "bool" }] },
  "oauth.denied": { label: "MCP client declined", sentence: "{who} declined the MCP client {client}", fields: [] },
  "oauth.token_issued": { label: "MCP token issued", sentence: "{who} received an access token", fields: [{ key: "scope", label: "Scope" }, { key: "grant_type", label: "By" }] },
  "approval.requested": { label: "Approval requested", sentence: "{who} asked to run one call of {op}{in realm}", fields: [{ key: "approval_id", label: "Approval" }, { key: "tool", label: "Tool" }, { key: "expires_at", label: "Waits until", as: "time" }] },
  "approval.approved": { label: "Call approved", sentence: "{who} approved one call of {op}{in realm}", fields: [{ key: "approval_id", label: "Approval" }, { key: "note", label: "Note" }, { key: "items", label: "About", as: "items" }] },
  "approval.denied": { label: "Call denied", sentence: "{who} denied one call of {op}{in realm}", fields: [{ key: "approval_id", label: "Approval" }, { key: "note", label: "Note" }, { key: "items", label: "About", as: "items" }] },
  "approval.expired": { label: "Approval expired", sentence: "An approval for {op}{in realm} expired unused", fields: [{ key: "approval_id", label: "Approval" }, { key: "was", label: "It was" }, { key: "expired_at", label: "Expired", as: "time" }] },
  "approval.consumed": { label: "Approved call ran", sentence: "{who} ran the approved call of {op}{in realm}", fields: [{ key: "approval_id", label: "Approval" }] },
  "approval.voided": { label: "Approval voided", sentence: "An approval for {op}{in realm} stopped counting", fields: [{ key: "approval_id", label: "Approval" }, { key: "reason", label: "Why" }] },
  "oauth.tokens_revoked": { label: "MCP tokens revoked", sentence: "Realmgate revoked an MCP client's tokens", fields: [{ key: "refresh_tokens", label: "Refresh tokens", as: "count" }] },
};

/** Error codes and the other reason codes the trail records, as a person reads them. */
export const reasonWords: Record<string, string> = {
  invalid_input: "The request was malformed",
  invalid_ref: "It named an object that does not exist in that form",
  invalid_cursor: "The page marker was altered or belongs elsewhere",
  unauthenticated: "Not signed in, or the token is unknown, expired or revoked",
  forbidden: "This role or kind of caller may never do this",
  insufficient_scope: "The MCP client was not approved for this",
  operation_disabled: "Turned off by the workspace owner or the person's own choice",
  operation_not_selected: "Agents act only on operations they selected here; this one was not",
  consent_required: "No grant covers this; the person was asked",
  approval_required: "Each call asks first; the person was asked to approve this one",
  approval_denied: "The person denied this exact call",
  approval_expired: "The approval had lapsed or stopped counting; a new one was asked for",
  approval_mismatch: "It named an approval given for a different call",
  grant_expired: "The grant had expired; the person was asked again",
  grant_revoked: "The grant had been revoked",
  needs_connected_account_consent: "The connected account cannot serve this (missing, lacking a permission, or needing a reconnect)",
  realm_denied: "The realm's own rule or the provider refused",
  url_expired: "The download link had expired",
  bad_signature: "The download link was altered or not issued by Realmgate",
  not_found: "Nothing by that name that the caller may see",
  method_not_allowed: "Not served by this route",
  conflict: "Already decided or taken",
  ambiguous_selector: "Several objects matched; the caller was asked to choose",
  payload_too_large: "The request or file was too large",
  unsupported_media_type: "The body had the wrong content type",
  spec_ref_unresolved: "A reference in the imported document could not be read",
  idempotency_conflict: "The same idempotency key came with a different body",
  rate_limited: "Too many calls in a minute",
  internal_error: "An unexpected failure on Realmgate's side",
  provider_unavailable: "The outside service failed or did not answer",
  service_unavailable: "Realmgate could not answer at that moment",
  meaning_changed: "The operation's meaning changed (re-import or curation)",
  scope_migrated: "An old prefix scope was rewritten",
  rotated: "Replaced by a new token",
  reconnect_required: "The account must be reconnected",
  narrowing: "A permission is being removed; the person signs in again to keep the others",
};

/** The workspace settings a tenant.settings_changed record names, in words. */
const settingWords: Record<string, string> = { catalog_budget_bytes: "Catalog budget for agents" };

/** 16384 → "16 KB" (binary kilobytes, as the budget is set); 10035 → "9.8 KB". */
export function kilobytes(bytes: number): string {
  const kb = Math.round((bytes / 1024) * 10) / 10;
  return `${Number.isInteger(kb) ? kb : kb.toFixed(1)} KB`;
}

const CODE = /^[a-z][a-z0-9_]*$/;

/** A recorded reason in words: a known code's sentence, an unknown code made readable, free text as written. */
export function reasonText(reason: string | null): { text: string; code: string | null } | null {
  if (!reason) return null;
  if (CODE.test(reason)) {
    const known = reasonWords[reason];
    return { text: known ?? reason.charAt(0).toUpperCase() + reason.slice(1).replaceAll("_", " "), code: reason };
  }
  return { text: reason, code: null };
}

/**
 * Who is behind the ids: people and agents (the console's directory), and — when the server sent them with the page
 * (lib/views/audit.ts) — connected accounts, providers and permissions as the Connection Hub names them.
 */
export type Names = { user: (id: string | null) => string | null; actor: (id: string | null) => string | null; ids?: AuditNames };

/** Outcomes in words (the badge on a row, the filter's choices). */
export const outcomeWords: Record<string, { label: string; tone: BadgeTone }> = {
  allow: { label: "Allowed", tone: "green" },
  deny: { label: "Denied", tone: "red" },
  ok: { label: "Done", tone: "slate" },
  error: { label: "Failed", tone: "amber" },
};

/** An operation key in words: its realm's label, or — with no realm — what it does across the realms. */
export function operationText(words: Words, namespace: string | null, operation: string): string {
  if (namespace) return wordsFor(words, namespace, operation).label;
  return operationAcrossRealms(operation) ?? operation;
}

const utcTime = (iso: string) => new Date(iso).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" }) + " UTC";

/** The lookups a recorded search is named with: the directory's people and agents, the realms' words. */
const filterLookups = (words: Words, names: Names): FilterLookups => ({
  person: (id) => names.user(id),
  agent: (id) => names.actor(id),
  realm: (ns) => realmTitle(words, ns),
  operation: (ns, op) => operationText(words, ns, op),
  outcome: (o) => outcomeWords[o]?.label ?? o,
  event: (ev) => (eventTable as Record<string, EventWords | undefined>)[ev]?.label ?? ev,
  time: utcTime,
});

export type EventSummary = { label: string; sentence: string; details: { label: string; value: string }[] };

const viewWords: Record<string, string> = {
  "support.console": "the support console",
  "support.revocations": "the revocations",
  "grant.timeline": "a grant's timeline",
  "audit.list": "an audit search",
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function listText(items: string[], max = 6): string {
  return items.length > max ? `${items.slice(0, max).join(", ")} and ${items.length - max} more` : items.join(", ");
}

function curationLine(c: Record<string, unknown>, op: (key: string) => string): string {
  // A change that relabels the operation is named by its document name, so "labelled …" reads as the change.
  const name = typeof c.action !== "string" ? "?" : c.label !== undefined ? c.action : op(`object.action.${c.action}`);
  const parts: string[] = [];
  if (c.hidden === true) parts.push("hidden");
  if (c.hidden === false) parts.push("shown");
  if (typeof c.label === "string") parts.push(`labelled “${c.label}”`);
  if (c.label === null) parts.push("label restored");
  if (typeof c.risk === "string") parts.push(`risk set to ${c.risk}`);
  if (c.risk === null) parts.push("risk restored");
  // Records written before the rename name the flag approval_required.
  const exactOnly = c.exact_grant_only ?? c.approval_required;
  if (exactOnly === true) parts.push("only an exact grant covers it");
  if (exactOnly === false) parts.push("no longer only for exact grants");
  if (Array.isArray(c.keywords)) parts.push(`keywords ${c.keywords.join(", ")}`);
  return `${name}: ${parts.join(", ") || "unchanged"}`;
}

function fieldValue(f: Field, v: unknown, e: AuditEventView, words: Words, names: Names): string | null {
  if (v === undefined || v === null || v === "") return null;
  const op = (key: string) => operationText(words, e.namespace, key);
  const ids = names.ids;
  switch (f.as) {
    case "provider":
      return typeof v === "string" && ids ? providerText(ids, v) : typeof v === "string" ? v : JSON.stringify(v);
    case "claims":
      return Array.isArray(v) && v.length ? listText(v.map((c) => (typeof c === "string" && ids ? claimText(ids, c) : String(c)))) : null;
    case "filters":
      return isRecord(v) ? filtersText(v, filterLookups(words, names)) : null;
    case "count":
      return Array.isArray(v) ? String(v.length) : typeof v === "number" ? v.toLocaleString("en") : String(v);
    case "bool":
      return v === true ? "yes" : v === false ? "no" : String(v);
    case "time":
      return typeof v === "string" ? utcTime(v) : null;
    case "operations":
      return Array.isArray(v) && v.length ? listText(v.map((k) => (typeof k === "string" ? op(k) : String(k)))) : null;
    case "list":
      return Array.isArray(v) && v.length ? listText(v.map(String)) : null;
    case "items":
      // The names the person read when they decided, captured then (not read again now).
      return Array.isArray(v) && v.length
        ? listText(v.filter(isRecord).map((i) => (i.visible === false ? "something they could not see" : typeof i.label === "string" ? i.label : String(i.ref))))
        : null;
    case "scope":
      if (!isRecord(v)) return null;
      if (typeof v.account_id === "string") {
        const account = ids ? accountNameText(ids, v.account_id) : null;
        return account ? `one connected account: ${account}` : `one connected account (${v.account_id})`;
      }
      if (Array.isArray(v.refs)) return `${v.refs.length} ${v.refs.length === 1 ? "object" : "objects"}: ${listText(v.refs.map(String), 3)}`;
      if (typeof v.ref_prefix === "string") return `refs starting ${v.ref_prefix}`;
      return null;
    case "switches": {
      if (!Array.isArray(v)) return null;
      const list = v.filter(isRecord);
      // Records written before modes existed say enabled: true | false.
      const modeOf = (c: Record<string, unknown>) => (typeof c.mode === "string" ? c.mode : c.enabled === false ? "off" : c.enabled === true ? "on" : null);
      const part = (mode: string) => {
        const ops = list.filter((c) => modeOf(c) === mode).map((c) => (typeof c.operation === "string" ? op(c.operation) : "?"));
        return ops.length ? `${mode === "ask" ? "ask each time" : mode}: ${listText(ops, 4)}` : null;
      };
      return ["off", "ask", "on"].map(part).filter(Boolean).join("; ") || null;
    }
    case "verbatim":
      // A name as the code spells it (a tool name): underscores are part of it.
      return typeof v === "string" ? v : JSON.stringify(v);
    case "settings": {
      if (!isRecord(v)) return null;
      const parts = Object.entries(v).map(([k, x]) => {
        const label = settingWords[k] ?? k.replaceAll("_", " ");
        return `${label}: ${k.endsWith("_bytes") && typeof x === "number" ? kilobytes(x) : typeof x === "string" ? x : JSON.stringify(x)}`;
      });
      return parts.length ? parts.join(", ") : null;
    }
    case "curation":
      return Array.isArray(v) && v.length ? v.filter(isRecord).slice(0, 10).map((c) => curationLine(c, op)).join("; ") + (v.length > 10 ? `; and ${v.length - 10} more` : "") : null;
    case "suspensions":
      return Array.isArray(v) && v.length
        ? v
            .filter(isRecord)
            .map((s) => `${typeof s.operation === "string" ? op(s.operation) : "?"}${typeof s.change === "string" ? ` (${s.change.replaceAll("_", " ")})` : ""}`)
            .join(", ")
        : null;
    default:
      if (f.key === "actor_id" && typeof v === "string") return names.actor(v);
      if (isRecord(v)) {
        const entries = Object.entries(v).filter(([, x]) => x !== undefined && x !== null && x !== "");
        return entries.length ? entries.map(([k, x]) => `${k.replaceAll("_", " ")} ${typeof x === "string" ? x : JSON.stringify(x)}`).join(", ") : "none";
      }
      return typeof v === "string" ? v.replaceAll("_", " ") : JSON.stringify(v);
  }
}

function whoText(e: AuditEventView, names: Names): string {
  if (e.principal_type === "actor") return `${names.actor(e.actor_id) ?? "An agent"} (for ${names.user(e.user_id) ?? "someone"})`;
  if (e.principal_type === "system") return "Realmgate";
  return names.user(e.user_id) ?? "Someone";
}

/** The agent an event is about when it is not the one acting: a grant's, a token's, a created or revoked actor. */
export function subjectAgent(e: AuditEventView, names: Names): string | null {
  if (e.actor_id) return names.actor(e.actor_id);
  if (typeof e.details.actor_id === "string") return names.actor(e.details.actor_id);
  if (e.subject_id?.startsWith("act_")) return names.actor(e.subject_id);
  return null;
}

/** One event as a sentence and the details worth reading; an event the table does not know still reads. */
export function eventSummary(e: AuditEventView, words: Words, names: Names): EventSummary {
  const w = (eventTable as Record<string, EventWords | undefined>)[e.event];
  const realm = e.namespace ? realmTitle(words, e.namespace) : null;
  const op = e.operation ? operationText(words, e.namespace, e.operation) : null;
  const client = typeof e.details.client_name === "string" ? e.details.client_name : typeof e.details.client_id === "string" ? e.details.client_id : "an MCP client";
  const view = typeof e.details.view === "string" ? (viewWords[e.details.view] ?? e.details.view.replaceAll(".", " ")) : "the audit trail";
  const fill = (s: string) =>
    s
      .replaceAll("{who}", whoText(e, names))
      .replaceAll("{agent}", subjectAgent(e, names) ?? "an agent")
      .replaceAll("{in realm}", realm ? ` in ${realm}` : "")
      .replaceAll("{realm}", realm ?? "a realm")
      .replaceAll("{op}", op ? `“${op}”` : "a tool")
      .replaceAll("{client}", client)
      .replaceAll("{view}", view);
  if (!w) {
    const label = e.event.charAt(0).toUpperCase() + e.event.slice(1).replaceAll(/[._]/g, " ");
    return { label, sentence: fill(`{who}: ${label.toLowerCase()}{in realm}`), details: [] };
  }
  const details = w.fields.flatMap((f) => {
    const value = fieldValue(f, e.details[f.key], e, words, names);
    return value ? [{ label: f.label, value }] : [];
  });
  return { label: w.label, sentence: fill(w.sentence), details };
}

export const eventLabel = (event: string) => (eventTable as Record<string, EventWords | undefined>)[event]?.label ?? event;
