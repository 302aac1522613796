// The mail realm's declaration: a connected realm over the Gmail REST API, reached with the user's own
// connected accounts. Kinds, selectors, actions (with the connected-account claims each needs) and catalog.
import { z } from "zod";
import { manifestSchema, type RealmManifest } from "@/lib/realms/contract";

/** The claim every read needs; actions declare their own below. */
export const READ_CLAIMS = ["gmail:read"];

const account = z
  .string()
  .trim()
  .min(1)
  .max(320)
  .describe("which connected account to use, by its label or email; needed only when you have several");
const address = z
  .string()
  .trim()
  .min(3)
  .max(320)
  // Surrounding whitespace is trimmed away, so the pattern allows it (the published schema sees the raw value).
  .regex(/^\s*[^\s<>"\r\n,;]+@[^\s<>"\r\n,;]+\s*$/, "a plain email address such as dana@example.com")
  .meta({ patternMessage: "must be a plain email address such as dana@example.com" });
const addresses = z.array(address).min(1).max(50);

/** Action payloads, parsed by the adapter; their JSON Schemas are derived from them so the two never drift. */
export const sendPayload = z.strictObject({
  account: account.optional(),
  to: addresses.describe("recipients' email addresses"),
  cc: z.array(address).max(50).optional(),
  bcc: z.array(address).max(50).optional(),
  subject: z.string().trim().min(1).max(500),
  body: z.string().min(1).max(100_000).describe("plain text"),
});
export const replyPayload = z.strictObject({
  body: z.string().min(1).max(100_000).describe("plain text of the reply; the original is quoted below it"),
  reply_all: z.boolean().default(false).describe("also reply to everyone else on the message"),
});
export const forwardPayload = z.strictObject({
  to: addresses.describe("recipients' email addresses"),
  note: z.string().max(20_000).optional().describe("a few words above the forwarded message"),
});
export const archivePayload = z.strictObject({});
export const labelPayload = z
  .strictObject({
    add: z.array(z.string().trim().min(1).max(225)).max(20).optional().describe("label names to add, e.g. [\"Travel\"]"),
    remove: z.array(z.string().trim().min(1).max(225)).max(20).optional().describe("label names to remove"),
  })
  .refine((p) => (p.add?.length ?? 0) + (p.remove?.length ?? 0) > 0, "name at least one label to add or remove");

function payloadSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: "input" });
  return rest;
}

const accountField = { name: "account", type: "string", description: "Label of the connected account the object lives in." } as const;

export const manifest: RealmManifest = manifestSchema.parse({
  namespace: "mail",
  realm_type: "connected",
  connection: { api: "gmail" },
  service_card: {
    title: "Mail",
    purpose: "Finds, reads and sends email in the mail accounts you connect, so agents can help with your inbox — only as far as you allow.",
    works_with: "Gmail accounts (Google) connected in Realmgate's Connection Hub; several accounts per person, each with its own permissions.",
    touches: [
      "Messages, threads and labels in the mail accounts you connect",
      "Mail sent, replied or forwarded as you — only with the send permission",
      "Archiving and labels — only with the modify permission",
      "Attachments you open are copied into Realmgate as short-lived download links",
    ],
    operation_labels: {
      "provider.about": "About Mail",
      "object.schema": "Browse Mail's capabilities",
      "object.list": "List messages, threads or labels",
      "object.search": "Search your mail",
      "object.get": "Read a message, thread or label",
      "object.action.send": "Send a new email",
      "object.action.reply": "Reply to an email",
      "object.action.forward": "Forward an email",
      "object.action.archive": "Archive an email",
      "object.action.label": "Add or remove labels",
    },
  },
  kinds: [
    {
      name: "mail.message",
      label: "Email message",
      one_liner: "One email: sender, recipients, subject, date, labels, body and attachments.",
      ref_pattern: "mail:gmail:<account_id>:message:<message_id>",
      fields: [
        accountField,
        { name: "from", type: "string", description: "Sender, as in the From header." },
        { name: "to", type: "string[]", description: "Recipients." },
        { name: "cc", type: "string[]", description: "Copied recipients." },
        { name: "subject", type: "string", description: "Subject line." },
        { name: "date", type: "datetime", description: "When the provider received or sent it." },
        { name: "snippet", type: "string", description: "The first words of the body." },
        { name: "labels", type: "string[]", description: "Label names (INBOX, UNREAD, STARRED, your own labels…)." },
        { name: "unread", type: "boolean", description: "Not opened yet." },
        { name: "thread", type: "ref", description: "The conversation it belongs to.", ref_kind: "mail.thread" },
        { name: "body", type: "text", description: "The plain-text body.", heavy: true },
        { name: "attachments", type: "file", description: "Attachments as {name, content_type, size, file: {encoding: \"url\", url, expires_at}}." },
      ],
      operations: ["object.list", "object.search", "object.get"],
      filters: ["account", "label", "unread"],
    },
    {
      name: "mail.thread",
      label: "Email thread",
      one_liner: "A conversation: its messages in order, with participants.",
      ref_pattern: "mail:gmail:<account_id>:thread:<thread_id>",
      fields: [
        accountField,
        { name: "subject", type: "string", description: "Subject of the first message." },
        { name: "participants", type: "string[]", description: "Everyone who wrote or was addressed." },
        { name: "message_count", type: "integer", description: "Messages in the thread." },
        { name: "messages", type: "object", description: "The messages, oldest first: {ref, from, date, snippet, unread}." },
      ],
      operations: ["object.list", "object.search", "object.get"],
      filters: ["account", "label", "unread"],
    },
    {
      name: "mail.label",
      label: "Mail label",
      one_liner: "A label (folder): system ones like INBOX and yours like Travel, with counts.",
      ref_pattern: "mail:gmail:<account_id>:label:<label_id>",
      fields: [
        accountField,
        { name: "name", type: "string", description: "Label name." },
        { name: "type", type: "string", description: "system or user.", enum: ["system", "user"] },
        { name: "messages_total", type: "integer", description: "Messages carrying it." },
        { name: "messages_unread", type: "integer", description: "Unread messages carrying it." },
      ],
      operations: ["object.list", "object.search", "object.get"],
      filters: ["account"],
    },
  ],
  selectors: [
    { kind: "mail.message", by: "subject", description: "Messages whose subject contains these words, in this order and form, newest first; several matches return choices." },
    { kind: "mail.message", by: "from", description: "Messages from this sender (name or address); combine with subject to narrow." },
    { kind: "mail.message", by: "account", description: "Which connected account (label or email) to look in, when you have several." },
    { kind: "mail.thread", by: "subject", description: "Threads whose subject contains these words, in this order and form; several matches return choices." },
    { kind: "mail.thread", by: "account", description: "Which connected account (label or email) to look in, when you have several." },
    { kind: "mail.label", by: "name", description: "A label by its name, e.g. {name: \"Travel\"}." },
    { kind: "mail.label", by: "account", description: "Which connected account (label or email) to look in, when you have several." },
  ],
  actions: [
    {
      name: "send",
      label: "Send",
      description: "Send a new plain-text email from a connected account. Never resent on a timeout: a timeout says it may or may not have been sent.",
      target_kind: null,
      payload_schema: payloadSchema(sendPayload),
      example: { to: ["dana@northwind.test"], subject: "Agenda for Thursday", body: "Hi Dana, here is the agenda…" },
      risk: "write",
      claims: ["gmail:send"],
      returns: "{sent: true, ref, thread_ref, account}.",
    },
    {
      name: "reply",
      label: "Reply",
      description: "Reply to a message in its thread (to its sender, or everyone with reply_all), quoting it.",
      target_kind: "mail.message",
      payload_schema: payloadSchema(replyPayload),
      example: { body: "Thanks — Thursday works for me.", reply_all: false },
      risk: "write",
      claims: ["gmail:read", "gmail:send"],
      returns: "{sent: true, ref, thread_ref, to}.",
    },
    {
      name: "forward",
      label: "Forward",
      description: "Forward a message's text to new recipients, with an optional note. Attachments are not forwarded.",
      target_kind: "mail.message",
      payload_schema: payloadSchema(forwardPayload),
      example: { to: ["lee@acme.test"], note: "FYI" },
      risk: "write",
      claims: ["gmail:read", "gmail:send"],
      returns: "{sent: true, ref, thread_ref}.",
    },
    {
      name: "archive",
      label: "Archive",
      description: "Archive a message: take it out of the inbox (it stays searchable).",
      target_kind: "mail.message",
      payload_schema: payloadSchema(archivePayload),
      example: {},
      risk: "write",
      claims: ["gmail:modify"],
      returns: "{ref, archived: true, labels}.",
    },
    {
      name: "label",
      label: "Label",
      description: "Add or remove labels on a message, by label name (list mail.label for the names).",
      target_kind: "mail.message",
      payload_schema: payloadSchema(labelPayload),
      example: { add: ["Travel"], remove: ["UNREAD"] },
      risk: "write",
      claims: ["gmail:modify"],
      returns: "{ref, labels}.",
    },
  ],
  catalog: {
    path: "/",
    label: "Mail",
    description: "Find, read, send and organize email in your connected mail accounts.",
    keywords: ["mail", "email", "gmail", "inbox", "messages"],
    kinds: ["mail.message", "mail.thread", "mail.label"],
    operations: ["provider.about", "object.schema"],
    children: [
      {
        path: "/read",
        label: "Find and read mail",
        description: "Search mail with Gmail's query language (words and their plurals, OR, \"phrases\", -exclusions, from:, to:, subject:, label:, has:attachment, is:unread, in:sent, newer_than:7d…), list the inbox, read a message or a whole thread with its attachments.",
        keywords: ["search email", "find email", "read email", "inbox", "unread", "from", "attachment", "conversation", "thread", "what did", "check my mail"],
        kinds: ["mail.message", "mail.thread"],
        operations: ["object.search", "object.list", "object.get"],
        children: [],
      },
      {
        path: "/labels",
        label: "Labels",
        description: "List labels (folders) with their counts.",
        keywords: ["labels", "folders", "categories", "how many unread"],
        kinds: ["mail.label"],
        operations: ["object.list", "object.search", "object.get"],
        children: [],
      },
      {
        path: "/send",
        label: "Write mail",
        description: "Send a new email, reply to one, or forward one.",
        keywords: ["send email", "write email", "compose", "reply", "respond", "answer", "forward", "email someone"],
        kinds: ["mail.message"],
        operations: ["object.action.send", "object.action.reply", "object.action.forward"],
        children: [],
      },
      {
        path: "/organize",
        label: "Organize mail",
        description: "Archive messages and add or remove labels.",
        keywords: ["archive", "label", "tag", "file away", "mark as read", "clean up inbox"],
        kinds: ["mail.message"],
        operations: ["object.action.archive", "object.action.label"],
        children: [],
      },
    ],
  },
  claims: [
    { name: "gmail:read", label: "Read mail and labels" },
    { name: "gmail:send", label: "Send mail as the account" },
    { name: "gmail:modify", label: "Archive and label mail" },
  ],
  rules: [
    "Refs look like mail:gmail:<account_id>:message:<id> (also :thread: and :label:); a ref carries its account, so calls on a ref need no account.",
    "Each call uses one of the user's connected accounts. With several, name one: filter.account for list/search, selector.account for get by selector, payload.account for send (its label or email). Without one you get ambiguous_selector with the accounts as choices.",
    "search_objects on mail.message and mail.thread takes Gmail's query language, these parts of it: words match whole words anywhere in a message (sender, recipients, subject, body, attachment names), and a word also finds its singular or plural (invoices finds invoice); terms side by side must all match (AND is optional); a OR b (uppercase) or {a b} finds either, and OR binds tighter than AND (a b OR c is a (b OR c)); \"exact phrase\" asks for those words in that order and form; -x excludes a word, phrase, operator or group; ( ) groups, also after an operator: subject:(lunch friday).",
    "Search operators: from:dana, to:dana (To and Cc), subject:agenda, label:Travel (hyphens for spaces: label:my-family), has:attachment, is:unread, is:read, is:starred, is:important, in:inbox, in:sent, in:trash, in:spam, in:anywhere (trash and spam are searched only when the query names them or anywhere), newer_than:7d and older_than:7d (d days, m months, y years). Other operators are not supported and may be searched as plain words; no query is refused for its syntax, one that matches nothing returns no items. filter.label and filter.unread narrow the same search; search on mail.label matches label names containing the query.",
    "Reading needs the account's gmail:read claim; send/reply/forward need gmail:send; archive/label need gmail:modify. A missing account or claim answers needs_connected_account_consent (reason connect_required, claim_upgrade_required, reconnect_required or account_required) with a connection_hub_url for the user.",
    "Attachments come back as {encoding: \"url\", url, expires_at}; fetch them before they expire.",
    "send, reply and forward are never resent on a timeout: provider_unavailable with may_have_taken_effect means check in:sent before sending again. Use idempotency_key to make your own retries safe.",
  ],
  delivery: { cursors: true, files: false, max_page_size: 25 },
});
