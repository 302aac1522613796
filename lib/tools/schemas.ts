// The nine tools, defined once. REST, MCP and the UI are thin adapters over these schemas and the
// dispatcher. Inputs are strict (unknown fields rejected) and bounded.
import { z } from "zod";

const namespace = z.string().min(2).max(31).describe("Realm namespace, e.g. `docs`.");
const ref = z.string().min(3).max(512).describe("An opaque object ref returned by another tool, e.g. `docs:thread:thr_…`.");
const kind = z.string().min(3).max(80).describe("Object kind, e.g. `docs.comment_thread`.");
const cursor = z.string().min(1).max(2000).describe("`next_cursor` from the previous page.");
const limit = z.number().int().min(1).max(100).optional().describe("Page size (default 20).");
const filterValue = z.union([z.string().max(500), z.number(), z.boolean(), z.array(z.string().max(500)).max(50)]);
const filter = z.record(z.string().max(64), filterValue).optional().describe("Field filters the kind declares.");
const selector = z
  .record(z.string().max(64), z.string().min(1).max(500))
  .describe("Name an object the way a person would (e.g. `{\"title\": \"Q3 planning\"}`); ambiguity returns choices.");
const idempotencyKey = z.string().min(8).max(128).regex(/^[\x21-\x7e]+$/).optional().describe("Same key + same body replays the first result once.");
const payload = z.record(z.string(), z.unknown()).optional();

export const toolInputSchemas = {
  provider_about: z.strictObject({ namespace: namespace.optional() }),
  object_schema: z.strictObject({
    namespace: namespace.optional(),
    schema_path: z.string().min(1).max(300).optional().describe("A capability catalog node, e.g. `/discussion`."),
    query: z.string().min(1).max(500).optional().describe("Find capabilities by intent, e.g. `reply to a comment`."),
    search_mode: z.enum(["lexical", "semantic", "hybrid", "auto"]).optional().describe("Default auto: hybrid if the server has embeddings, else lexical; `mode_ran` says which ran."),
    kind: kind.optional(),
    operation: z.string().min(1).max(250).optional().describe("An exact operation key for its full contract, e.g. `object.action.reply_comment`."),
    limit: z.number().int().min(1).max(50).optional(),
  }),
  list_objects: z.strictObject({ namespace, kind, filter, cursor: cursor.optional(), limit }),
  search_objects: z.strictObject({ namespace, query: z.string().min(1).max(500), kind: kind.optional(), filter, cursor: cursor.optional(), limit }),
  get_object: z.strictObject({
    ref: ref.optional(),
    namespace: namespace.optional(),
    kind: kind.optional(),
    selector: selector.optional(),
    full: z.boolean().optional().describe("Include large fields (bodies). Files always come as a signed URL."),
  }),
  object_action: z.strictObject({
    action: z.string().min(1).max(200).describe("An action name from the realm's schema, exactly as written."),
    ref: ref.optional(),
    namespace: namespace.optional(),
    kind: kind.optional(),
    selector: selector.optional(),
    payload,
    idempotency_key: idempotencyKey,
  }),
  upsert_object: z.strictObject({
    namespace,
    kind,
    ref: ref.optional().describe("Omit to create; give to patch."),
    fields: z.record(z.string().max(64), z.unknown()).describe("Field values; list fields take a list or `{add, remove}`."),
    idempotency_key: idempotencyKey,
  }),
  host_file: z.strictObject({
    namespace,
    name: z.string().min(1).max(200),
    content_type: z.string().min(3).max(100).regex(/^[\w.+-]+\/[\w.+-]+$/),
    content_base64: z.string().max(700_000).regex(/^[A-Za-z0-9+/]*={0,2}$/, "must be base64"),
    idempotency_key: idempotencyKey,
  }),
  delete_object: z.strictObject({ ref }),
} as const;

export type ToolName = keyof typeof toolInputSchemas;
export const toolNames = Object.keys(toolInputSchemas) as ToolName[];
export type ToolInput<T extends ToolName> = z.infer<(typeof toolInputSchemas)[T]>;

/** One line each, written for a model. */
export const toolDescriptions: Record<ToolName, string> = {
  provider_about: "List the realms you may use; with `namespace`, learn one realm: purpose, kinds, selectors, actions, rules.",
  object_schema: "Browse or search a realm's capability catalog; get a kind's fields or one operation's exact contract before acting.",
  list_objects: "List objects of a kind (lean refs + labels), paged with `next_cursor`.",
  search_objects: "Search a realm's objects by text; returns lean refs.",
  get_object: "Get one object by `ref` (or by `selector`); compact unless `full`; files come as short-lived URLs.",
  object_action: "Run one declared action (e.g. `reply_comment`) on a ref or namespace; payload must match its contract.",
  upsert_object: "Create (no ref) or patch (ref) an object of a kind.",
  host_file: "Store a file (base64) in a realm; returns a file ref and a short-lived URL.",
  delete_object: "Delete one object by ref.",
};

/** The base operation key of each tool (object_action's is `object.action.<action>`). */
export const toolOperation: Record<Exclude<ToolName, "object_action">, string> = {
  provider_about: "provider.about",
  object_schema: "object.schema",
  list_objects: "object.list",
  search_objects: "object.search",
  get_object: "object.get",
  upsert_object: "object.upsert",
  host_file: "file.host",
  delete_object: "object.delete",
};

/** JSON Schema of each tool's input, derived from the zod schema (never written twice). */
export function toolJsonSchema(name: ToolName): Record<string, unknown> {
  const schema = z.toJSONSchema(toolInputSchemas[name], { target: "draft-2020-12", unrepresentable: "any" }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}
