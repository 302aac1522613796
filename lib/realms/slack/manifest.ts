// The Slack realm's declaration: a connected realm over Slack's Web API, reached with the user's own connected
// workspaces. Kinds, selectors, actions (with the connected-account claims each needs) and catalog.
import { z } from "zod";
import { manifestSchema, payloadSchema, type RealmManifest } from "@/lib/realms/contract";

/** The claim every read of channels, messages and people needs; files need their own. */
export const READ_CLAIMS = ["slack:read"];
export const FILE_READ_CLAIMS = ["slack:files:read"];
export const WRITE_CLAIMS = ["slack:write"];
export const FILE_WRITE_CLAIMS = ["slack:files:write"];

const text = z.string().min(1).max(40_000).describe("the message, in Slack's mrkdwn (plain text works)");
export const postPayload = z.strictObject({ text });
export const replyPayload = z.strictObject({
  text,
  also_send_to_channel: z.boolean().default(false).describe("also show the reply in the channel (Slack's reply_broadcast)"),
});
export const reactionPayload = z.strictObject({
  name: z
    .string()
    .trim()
    .regex(/^:?[a-z0-9_+'-]{1,100}:?$/, "an emoji name such as thumbsup or :eyes:")
    .transform((v) => v.replace(/^:|:$/g, ""))
    .describe("the emoji's name, with or without colons: thumbsup, eyes, white_check_mark"),
});
export const uploadPayload = z.strictObject({
  filename: z.string().trim().min(1).max(255).regex(/^[^/\\\r\n\0]+$/, "a file name without slashes").describe("the file's name, e.g. report.png"),
  title: z.string().trim().min(1).max(255).optional(),
  comment: z.string().min(1).max(4000).optional().describe("a message introducing the file in the channel"),
  thread_ts: z.string().regex(/^\d{9,11}\.\d{6}$/, "a message ts such as 1712345678.000100").optional().describe("post the file as a reply in this thread (the parent message's ts)"),
});

const accountField = { name: "account", type: "string", description: "Label of the connected workspace the object lives in." } as const;

export const manifest: RealmManifest = manifestSchema.parse({
  namespace: "slack",
  realm_type: "connected",
  connection: { api: "slack" },
  service_card: {
    title: "Slack",
    purpose: "Finds and reads conversations, people and files in the Slack workspaces you connect, and posts as you — only as far as you allow.",
    works_with: "Slack workspaces connected in Realmgate's Connection Hub (a user token per workspace); several workspaces per person, each with its own permissions.",
    touches: [
      "Channels, messages and people in the workspaces you connect",
      "Files shared in them — fetched from Slack when a link is opened, never stored in Realmgate",
      "Messages, replies and reactions posted as you — only with the write permission",
      "Files uploaded as you — only with the file upload permission",
    ],
    operation_labels: {
      "provider.about": "About Slack",
      "object.schema": "Browse Slack's capabilities",
      "object.list": "List channels or people",
      "object.search": "Search Slack messages",
      "object.get": "Read a channel, message, file or person",
      "object.action.post_message": "Post a message in a channel",
      "object.action.reply_in_thread": "Reply in a thread",
      "object.action.add_reaction": "Add an emoji reaction",
      "object.action.request_upload": "Upload a file to a channel",
    },
  },
  kinds: [
    {
      name: "slack.channel",
      label: "Slack channel",
      one_liner: "A conversation (public or private channel, or a direct message) with a window of its messages.",
      ref_pattern: "slack:<account_id>:channel:<channel_id>[@<ts>] (with @<ts>: the window of messages ending at that message)",
      fields: [
        accountField,
        { name: "name", type: "string", description: "The channel's name, without #." },
        { name: "topic", type: "string", description: "Its topic." },
        { name: "purpose", type: "string", description: "Its purpose." },
        { name: "is_private", type: "boolean", description: "Private channel or direct conversation." },
        { name: "members", type: "integer", description: "How many members it has." },
        { name: "messages", type: "object", description: "The window, oldest first: {ref, ts, author, text, thread, files: [{ref, name, mimetype, size}]}." },
        { name: "cursor", type: "object", description: "{earlier, latest}: windowed refs to get the messages before this window, and the newest ones." },
      ],
      operations: ["object.list", "object.get"],
      filters: ["account", "types"],
    },
    {
      name: "slack.message",
      label: "Slack message",
      one_liner: "One message: its text, author, thread and files.",
      ref_pattern: "slack:<account_id>:message:<channel_id>:<ts>",
      fields: [
        accountField,
        { name: "channel", type: "ref", description: "The channel it was posted in.", ref_kind: "slack.channel" },
        { name: "author", type: "object", description: "{ref, name} of who posted it." },
        { name: "text", type: "text", description: "The message text (Slack mrkdwn)." },
        { name: "date", type: "datetime", description: "When it was posted." },
        { name: "thread", type: "object", description: "{parent, reply_count, replies: [{ref, author, text}]} when it is in or starts a thread." },
        { name: "reactions", type: "object", description: "[{name, count}]." },
        { name: "files", type: "ref[]", description: "Its files as {ref, name, mimetype, size}; get_object on a file ref for a download link.", ref_kind: "slack.file" },
      ],
      operations: ["object.search", "object.get"],
      filters: ["account"],
    },
    {
      name: "slack.file",
      label: "Slack file",
      one_liner: "A file shared in Slack: its name, type and size, and a short-lived download link.",
      ref_pattern: "slack:<account_id>:file:<file_id>",
      fields: [
        accountField,
        { name: "name", type: "string", description: "File name." },
        { name: "title", type: "string", description: "Title shown in Slack." },
        { name: "mimetype", type: "string", description: "Content type." },
        { name: "size", type: "integer", description: "Size in bytes." },
        { name: "download", type: "file", description: "{encoding: \"url\", url, expires_at}: fetching it streams the current bytes from Slack." },
      ],
      operations: ["object.get"],
      filters: [],
    },
    {
      name: "slack.user",
      label: "Slack person",
      one_liner: "Someone in the workspace: handle, name, title and email.",
      ref_pattern: "slack:<account_id>:user:<user_id>",
      fields: [
        accountField,
        { name: "handle", type: "string", description: "Their Slack handle (name)." },
        { name: "name", type: "string", description: "Display or real name." },
        { name: "title", type: "string", description: "Job title from their profile." },
        { name: "email", type: "string", description: "Email, when the workspace shares it." },
        { name: "is_bot", type: "boolean", description: "A bot user." },
      ],
      operations: ["object.list", "object.get"],
      filters: ["account"],
    },
  ],
  selectors: [
    { kind: "slack.channel", by: "name", description: "The channel's name, with or without # (general, #design)." },
    { kind: "slack.user", by: "handle", description: "The person's handle, with or without @ (ana, @ana.ivanova)." },
    { kind: "slack.user", by: "email", description: "The person's email address." },
    { kind: "slack.channel", by: "account", description: "Which connected workspace (its label or email) to look in, when you have several." },
    { kind: "slack.user", by: "account", description: "Which connected workspace (its label or email) to look in, when you have several." },
  ],
  actions: [
    {
      name: "post_message",
      label: "Post a message",
      description: "Post a message in a channel as you.",
      target_kind: "slack.channel",
      payload_schema: payloadSchema(postPayload),
      example: { text: "The build is green again." },
      risk: "write",
      claims: ["slack:write"],
      returns: "{posted: true, ref, channel}.",
    },
    {
      name: "reply_in_thread",
      label: "Reply in thread",
      description: "Reply to a message in its thread as you (a reply's thread is its parent's).",
      target_kind: "slack.message",
      payload_schema: payloadSchema(replyPayload),
      example: { text: "Thanks — on it.", also_send_to_channel: false },
      risk: "write",
      claims: ["slack:read", "slack:write"],
      returns: "{posted: true, ref, thread}.",
    },
    {
      name: "add_reaction",
      label: "Add a reaction",
      description: "Add an emoji reaction to a message as you.",
      target_kind: "slack.message",
      payload_schema: payloadSchema(reactionPayload),
      example: { name: "thumbsup" },
      risk: "write",
      claims: ["slack:write"],
      returns: "{ref, reaction, added: true} (already_reacted: true when it was there).",
    },
    {
      name: "request_upload",
      label: "Upload a file",
      description: "Get a short-lived upload slot for a file to share in a channel (or a thread): PUT the bytes to its URL; Realmgate hands them to Slack as you.",
      target_kind: "slack.channel",
      payload_schema: payloadSchema(uploadPayload),
      example: { filename: "chart.png", comment: "This week's numbers" },
      risk: "write",
      claims: ["slack:files:write"],
      returns: "{upload: {method: \"PUT\", url, expires_at, max_bytes}}; the PUT answers {uploaded: true, file: <file ref>, channel}.",
    },
  ],
  catalog: {
    path: "/",
    label: "Slack",
    description: "Search, read and post in your connected Slack workspaces, and fetch or share files.",
    keywords: ["slack", "chat", "channel", "workspace", "messages"],
    kinds: ["slack.channel", "slack.message", "slack.file", "slack.user"],
    operations: ["provider.about", "object.schema"],
    children: [
      {
        path: "/read",
        label: "Find and read conversations",
        description: "Search messages with Slack's query language (words, \"phrases\", in:#channel, from:@person, has:link, before:/after:/on: dates…), read a channel's recent messages or the window around one, read a message with its thread and files.",
        keywords: ["search slack", "find message", "what did", "channel history", "thread", "conversation", "who said"],
        kinds: ["slack.message", "slack.channel"],
        operations: ["object.search", "object.get", "object.list"],
        children: [],
      },
      {
        path: "/files",
        label: "Files",
        description: "Get a file shared in Slack as a short-lived download link, or upload a file to a channel.",
        keywords: ["file", "attachment", "image", "download", "upload", "share a file", "screenshot"],
        kinds: ["slack.file", "slack.channel"],
        operations: ["object.get", "object.action.request_upload"],
        children: [],
      },
      {
        path: "/people",
        label: "People",
        description: "List the workspace's people, or find one by handle or email.",
        keywords: ["people", "user", "member", "who is", "email", "handle"],
        kinds: ["slack.user"],
        operations: ["object.list", "object.get"],
        children: [],
      },
      {
        path: "/post",
        label: "Post",
        description: "Post a message in a channel, reply in a thread, or react with an emoji.",
        keywords: ["post", "send message", "write in channel", "reply", "thread", "react", "emoji", "announce"],
        kinds: ["slack.channel", "slack.message"],
        operations: ["object.action.post_message", "object.action.reply_in_thread", "object.action.add_reaction"],
        children: [],
      },
    ],
  },
  claims: [
    { name: "slack:read", label: "Read channels, messages and people" },
    { name: "slack:files:read", label: "Open files" },
    { name: "slack:write", label: "Post messages and reactions as you" },
    { name: "slack:files:write", label: "Upload files as you" },
  ],
  rules: [
    "Refs carry their workspace: slack:<account_id>:channel:<C…>, slack:<account_id>:message:<C…>:<ts>, slack:<account_id>:file:<F…>, slack:<account_id>:user:<U…>; calls on a ref need no account.",
    "A channel ref with @<ts> (slack:<account_id>:channel:<C…>@<ts>) is a window: get_object on it returns the messages ending at that message, oldest first, with cursor.earlier (the window before it) and cursor.latest; without @<ts> it returns the newest messages. Search hits carry such windowed refs.",
    "search_objects on slack.message passes the query to Slack's search as written: words, \"exact phrases\", -exclusions, in:#channel, in:@person, from:@person, has:link, has:pin, has::emoji:, is:thread, before:2026-01-31, after:, on:, during:. Any language works.",
    "Each call uses one of the user's connected workspaces. With several, name one: filter.account for list/search, selector.account for get by selector (its label or email). Without one you get ambiguous_selector with the workspaces as choices.",
    "Reading needs the workspace's slack:read claim, files slack:files:read, posting/replying/reacting slack:write, uploading slack:files:write. A missing workspace or claim answers needs_connected_account_consent (connect_required, claim_upgrade_required, reconnect_required or account_required) with a connection_hub_url for the user.",
    "get_object on a file returns download: {encoding: \"url\", url, expires_at}; fetching the URL (plain HTTP GET, no token) streams the file's current bytes from Slack after checking your grant and the workspace's consent again. The bytes never appear in a tool result; fetch before it expires.",
    "request_upload returns an upload slot: PUT the file's bytes to upload.url (with its content-type) before it expires; the answer names the new file's ref.",
    "post_message, reply_in_thread and request_upload are never resent on a timeout: provider_unavailable with may_have_taken_effect means look at the channel before posting again.",
  ],
  delivery: { cursors: true, files: false, max_page_size: 100 },
});
