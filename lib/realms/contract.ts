// The realm contract: the declaration every realm makes (its manifest, validated here) and the
// RealmAdapter interface its code implements. Operations are declared as data; the adapter interface
// never grows realm-specific methods.
import { z } from "zod";
import type { Tx } from "@/db/client";
import type { DemoSeedStep } from "@/db/seed";
import { companionProblems, companionsSchema } from "./companions";

/** Namespaces: lowercase ASCII, start with a letter. */
/** Words the API uses beside namespaces (`/api/v1/realms/import`, `/api/v1/realms/resolve`): never a realm's. */
export const RESERVED_NAMESPACES: readonly string[] = ["import", "resolve"];
export const namespaceSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_]{1,30}$/, "a namespace is 2–31 of a-z, 0-9, _ starting with a letter")
  .refine((n) => !RESERVED_NAMESPACES.includes(n), { message: "that word is reserved (import, resolve); choose another namespace" });

/**
 * Action names are names: a letter or digit, then letters, digits, `_`, `.`, `-` and `/`. Native realms use
 * snake_case (`reply_comment`); imported OpenAPI realms use the operationId as written (`issues/create-comment`),
 * or `METHOD/path` where it has none or an unusable one (`GET/search/person`). `*` and spaces are never part of a
 * name, so no action can be named like "all actions". Comparison is byte-for-byte.
 */
export const ACTION_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.\-/]*$/;
export const actionNameSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(ACTION_NAME_PATTERN, "an action name is a letter or digit followed by letters, digits, _ . - or / (no spaces, no *)");

export const baseOperationKeys = [
  "provider.about",
  "object.schema",
  "object.list",
  "object.search",
  "object.get",
  "object.upsert",
  "object.delete",
  "file.host",
] as const;
export type BaseOperationKey = (typeof baseOperationKeys)[number];
export type ActionOperationKey = `object.action.${string}`;
export type OperationKey = BaseOperationKey | ActionOperationKey;

export const actionOperationKey = (action: string): ActionOperationKey => `object.action.${action}`;
export const isOperationKey = (s: string): s is OperationKey =>
  (baseOperationKeys as readonly string[]).includes(s) || (s.startsWith("object.action.") && actionNameSchema.safeParse(s.slice(14)).success);

export const riskSchema = z.enum(["read", "write", "destructive"]);
export type Risk = z.infer<typeof riskSchema>;

/** Risk of each base operation (actions declare their own). */
export const baseOperationRisk: Record<BaseOperationKey, Risk> = {
  "provider.about": "read",
  "object.schema": "read",
  "object.list": "read",
  "object.search": "read",
  "object.get": "read",
  "object.upsert": "write",
  "object.delete": "destructive",
  "file.host": "write",
};

export const fieldTypeSchema = z.enum(["string", "text", "number", "integer", "boolean", "datetime", "ref", "string[]", "ref[]", "object", "file"]);

export const fieldSchema = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9_]*$/),
  type: fieldTypeSchema,
  description: z.string().min(1),
  required: z.boolean().default(false),
  /** Known values (open vocabulary when `open` is true). */
  enum: z.array(z.string()).optional(),
  open: z.boolean().optional(),
  /** Returned only with `get_object(full: true)` (large bodies). */
  heavy: z.boolean().optional(),
  /** Settable through upsert_object. */
  writable: z.boolean().default(false),
  /** For ref fields: the kind referred to. Values of `ref`/`ref[]` fields are gated like the target ref. */
  ref_kind: z.string().optional(),
});
export type FieldDef = z.infer<typeof fieldSchema>;

/** A JSON Schema object (draft 2020-12 subset) describing an action's payload. */
export const jsonSchemaObject = z.record(z.string(), z.unknown());

export const kindSchema = z.strictObject({
  /** `<namespace>.<noun>`, e.g. `docs.comment_thread`. */
  name: z.string().regex(/^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/),
  label: z.string().min(1),
  one_liner: z.string().min(1),
  /** Human description of the ref shape, e.g. `docs:thread:<id>`. */
  ref_pattern: z.string().min(1),
  fields: z.array(fieldSchema).min(1),
  /** Which base operations this kind supports. */
  operations: z.array(z.enum(["object.list", "object.search", "object.get", "object.upsert", "object.delete"])),
  /** Filters list_objects/search_objects accept for this kind (field names). */
  filters: z.array(z.string()).default([]),
  /**
   * Native realms: the JSON Schemas the realm validates with (derived from its zod, never written by hand) for
   * upsert fields on create and on patch, list/search filters and resolve selectors. When present, `fields`'
   * `writable`, `filters` and this kind's selectors' `by` must name exactly their properties (checked below).
   */
  schemas: z
    .strictObject({
      create: jsonSchemaObject.optional(),
      patch: jsonSchemaObject.optional(),
      filter: jsonSchemaObject.optional(),
      selector: jsonSchemaObject.optional(),
    })
    .optional(),
});
export type KindDef = z.infer<typeof kindSchema>;
export type KindSchemas = NonNullable<KindDef["schemas"]>;

/** The property names a JSON Schema object declares (through anyOf/allOf/oneOf branches too). */
export function schemaProperties(schema: Record<string, unknown> | undefined): string[] {
  if (!schema) return [];
  const out = new Set<string>(Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {}));
  for (const key of ["anyOf", "allOf", "oneOf"] as const) {
    for (const branch of (schema[key] as Record<string, unknown>[] | undefined) ?? []) for (const p of schemaProperties(branch)) out.add(p);
  }
  return [...out];
}

/** Where a kind's declared writable fields, filters or selectors disagree with its `schemas`: one message each. */
export function kindSchemaDisagreements(kind: Pick<KindDef, "name" | "fields" | "filters" | "schemas">, selectorsBy: string[]): string[] {
  if (!kind.schemas) return [];
  const s = kind.schemas;
  const out: string[] = [];
  const same = (what: string, declared: string[], derived: string[]) => {
    const a = [...new Set(declared)].sort();
    const b = [...new Set(derived)].sort();
    if (a.join() !== b.join()) out.push(`kind ${kind.name}: ${what} [${a.join(", ")}] disagree with its schemas [${b.join(", ")}]`);
  };
  same("writable fields", kind.fields.filter((f) => f.writable).map((f) => f.name), [...schemaProperties(s.create), ...schemaProperties(s.patch)]);
  same("filters", kind.filters, schemaProperties(s.filter));
  same("selectors", selectorsBy, schemaProperties(s.selector));
  return out;
}

export const selectorSchema = z.strictObject({
  kind: z.string(),
  /** The field a person would name the object by: `title`, `author`, `status`, `label`… */
  by: z.string(),
  description: z.string().min(1),
});
export type SelectorDef = z.infer<typeof selectorSchema>;

/** An action's payload contract from its zod schema: what a caller may send (defaults not required), without `$schema`. */
export function payloadSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: "input" });
  return rest;
}

export const actionSchema = z.strictObject({
  name: actionNameSchema,
  label: z.string().min(1),
  description: z.string().min(1),
  /** The kind whose ref the action runs on; null for namespace-level actions (e.g. `send`). */
  target_kind: z.string().nullable(),
  payload_schema: jsonSchemaObject,
  example: z.record(z.string(), z.unknown()),
  risk: riskSchema,
  /** Connected-account claims needed (gate two of connected realms), e.g. `gmail:send`. */
  claims: z.array(z.string()).default([]),
  /** What the action returns, in a sentence. */
  returns: z.string().min(1),
  /** Owner's mark: an agent needs a grant naming exactly this action (`object.action.*` does not cover it). */
  exact_grant_only: z.boolean().optional(),
  /**
   * Payload paths that hold refs, gated like the target (same grant, same operation key): dot-separated field
   * names, `[]` after a name for each element of an array (`attachments[]`, `items[].ref`).
   */
  ref_paths: z.array(z.string().regex(/^[a-z_][a-z0-9_]*(\[\])?(\.[a-z_][a-z0-9_]*(\[\])?)*$/)).default([]),
});
export type ActionDef = z.infer<typeof actionSchema>;

export type CatalogNode = {
  path: string;
  label: string;
  description: string;
  keywords: string[];
  kinds: string[];
  operations: string[];
  children: CatalogNode[];
};

export const catalogNodeSchema: z.ZodType<CatalogNode> = z.lazy(() =>
  z.strictObject({
    /** Absolute, slash-separated: `/discussion/reply`. The root is `/`. */
    path: z.string().regex(/^\/([a-z0-9_-]+(\/[a-z0-9_-]+)*)?$/),
    label: z.string().min(1),
    description: z.string().min(1),
    keywords: z.array(z.string()),
    kinds: z.array(z.string()),
    operations: z.array(z.string()),
    children: z.array(catalogNodeSchema),
  }),
);

export const serviceCardSchema = z.strictObject({
  title: z.string().min(1),
  purpose: z.string().min(1),
  works_with: z.string().min(1),
  touches: z.array(z.string()).min(1),
  /** Human label for every operation key the realm offers (base operations and actions). */
  operation_labels: z.record(z.string(), z.string()),
});

export const manifestSchema = z
  .strictObject({
    namespace: namespaceSchema,
    realm_type: z.enum(["native", "connected", "openapi", "remote"]),
    service_card: serviceCardSchema,
    kinds: z.array(kindSchema).min(1),
    selectors: z.array(selectorSchema).default([]),
    actions: z.array(actionSchema).default([]),
    catalog: catalogNodeSchema,
    claims: z.array(z.strictObject({ name: z.string(), label: z.string() })).default([]),
    /** Connected realms: the connection API whose accounts it acts through (a provider API family); grants may be scoped to one account. */
    connection: z.strictObject({ api: z.string().min(1) }).optional(),
    companions: companionsSchema, // operations that go together: a consent request for one offers the others
    /** Rules an agent should know: how selection and ambiguity work, the file story, denial shapes. */
    rules: z.array(z.string()).default([]),
    delivery: z.strictObject({
      cursors: z.boolean(),
      files: z.boolean(),
      max_page_size: z.number().int().min(1).max(200).default(50),
    }),
  })
  .superRefine((m, ctx) => {
    const kinds = new Set(m.kinds.map((k) => k.name));
    for (const k of m.kinds) {
      if (!k.name.startsWith(`${m.namespace}.`)) ctx.addIssue({ code: "custom", path: ["kinds"], message: `kind ${k.name} is outside namespace ${m.namespace}` });
      const by = m.selectors.filter((sel) => sel.kind === k.name).map((sel) => sel.by);
      for (const message of kindSchemaDisagreements(k, by)) ctx.addIssue({ code: "custom", path: ["kinds"], message });
    }
    const names = new Set<string>();
    for (const a of m.actions) {
      if (names.has(a.name)) ctx.addIssue({ code: "custom", path: ["actions"], message: `duplicate action ${a.name}` });
      names.add(a.name);
      if (a.target_kind && !kinds.has(a.target_kind)) ctx.addIssue({ code: "custom", path: ["actions"], message: `action ${a.name} targets unknown kind ${a.target_kind}` });
    }
    const ops = new Set(operationKeysOf(m));
    for (const key of ops) {
      if (!m.service_card.operation_labels[key]) ctx.addIssue({ code: "custom", path: ["service_card", "operation_labels"], message: `no human label for ${key}` });
    }
    for (const message of companionProblems(m.companions, ops)) ctx.addIssue({ code: "custom", path: ["companions"], message });
    const walk = (n: CatalogNode) => {
      for (const k of n.kinds) if (!kinds.has(k)) ctx.addIssue({ code: "custom", path: ["catalog"], message: `catalog ${n.path} names unknown kind ${k}` });
      for (const o of n.operations) if (!ops.has(o as OperationKey)) ctx.addIssue({ code: "custom", path: ["catalog"], message: `catalog ${n.path} names unknown operation ${o}` });
      n.children.forEach(walk);
    };
    walk(m.catalog);
  });

export type RealmManifest = z.infer<typeof manifestSchema>;

/** Every operation key a realm offers: about + schema, the base operations its kinds support, its actions. */
export function operationKeysOf(m: Pick<RealmManifest, "kinds" | "actions" | "delivery">): OperationKey[] {
  const keys = new Set<OperationKey>(["provider.about", "object.schema"]);
  for (const k of m.kinds) for (const op of k.operations) keys.add(op);
  if (m.delivery.files) keys.add("file.host");
  for (const a of m.actions) keys.add(actionOperationKey(a.name));
  return [...keys];
}

export function riskOf(m: Pick<RealmManifest, "actions">, op: OperationKey): Risk {
  if (op.startsWith("object.action.")) return m.actions.find((a) => a.name === op.slice(14))?.risk ?? "destructive";
  // Own keys only: an operation key is sometimes the caller's text.
  return Object.hasOwn(baseOperationRisk, op) ? baseOperationRisk[op as BaseOperationKey] : "destructive";
}

// --- The adapter side. -----------------------------------------------------------------------------

/** Who a call runs for. A delegated actor is never rewritten into its user. */
export type Principal = { type: "user"; userId: string } | { type: "actor"; actorId: string; grantorId: string; actorKind: string };

/** What a ref names, from its syntax alone (no I/O): its kind, and the connected account it lives in, if any. */
export type ParsedRef = { kind: string; account_id?: string };

/** A ref as a person reads it: resolved with the caller's authority (null when it does not exist or is invisible). */
export type RefDescription = { kind: string; label: string; summary?: string; lineage: string[] };

export type { ResourceScope } from "@/db/schema/authz";
import type { ResourceScope } from "@/db/schema/authz";

/** The user whose authority a call projects: the user, or the actor's grantor. Realm ACLs check this. */
export const authorityOf = (p: Principal): string => (p.type === "user" ? p.userId : p.grantorId);

/** Signed URLs and stored files, provided by lib/delivery to realms. */
export interface DeliveryPort {
  /** Store bytes as a file owned by `realm` under `ownerRef`; returns the file id. */
  storeFile(input: { namespace: string; name: string; contentType: string; bytes: Uint8Array; ownerUserId: string }): Promise<{ fileId: string; size: number; sha256: string }>;
  /**
   * `{ encoding: "url", url, expires_at }` for a stored file, redeemable only by this call's principal. With
   * `ref` (the object the file was reached through), redemption asks the realm again whether the principal may
   * still get that object; without it, only the file's owner may redeem.
   */
  fileUrl(fileId: string, opts?: { ttlSeconds?: number; name?: string; ref?: string }): Promise<{ encoding: "url"; url: string; expires_at: string }>;
  /** Destroy a stored file's bytes: links minted earlier stop working at once. */
  deleteFile(fileId: string): Promise<void>;
  /** A link to bytes the realm streams from its provider (`streamFile`), or a slot to PUT bytes to (`receiveUpload`); nothing stored. */
  liveUrl?(input: { namespace: string; ref: string; method: "GET" | "PUT"; name: string; ttlSeconds?: number; params?: Record<string, string> }): Promise<{ encoding: "url"; url: string; expires_at: string }>;
}

export type RealmContext = {
  /** The transaction of this call: gate one was read in it, the audit is written in it. */
  tx: Tx;
  tenantId: string;
  principal: Principal;
  requestId: string;
  now: Date;
  delivery: DeliveryPort;
  /** Absolute base URL of the app (for deep links in denials). */
  appUrl: string;
  /** The operation key gate one decided on (remote realms hand it to their provider). */
  operation?: string;
  /** The resource scope of the grant that let an actor in (null: the whole namespace). Realms narrow by it. */
  grantScope?: ResourceScope | null;
  /**
   * Adapters that turn a name (a title, a label) into a ref call this before using it: the ref must be covered by
   * the same grant as the call's target, or it throws (the dispatcher answers `consent_required`, naming the ref).
   * A no-op for people.
   */
  gateRef(ref: string, where?: string): Promise<void>;
  /**
   * Writes that must happen whether the effect succeeds or fails (a rotated refresh token, an account found
   * broken): run after the effect (its savepoint committed or rolled back) on the enclosing transaction, before
   * the call's audit record. A write checks the row version it expects, so a stale one never undoes a newer one.
   */
  settled(write: (tx: Tx) => Promise<void>): void;
  usedAccount?(accountId: string): void; // a connected realm names the account it used (the call's audit keeps it)
};

export type LeanItem = { ref: string; kind: string; label: string; summary?: string; updated_at?: string };
export type Page = { items: LeanItem[]; next_cursor: string | null };
export type Filter = Record<string, string | number | boolean | string[]>;

/** Cursor state a realm round-trips through list/search; lib/delivery signs and opaques it. */
export type CursorState = Record<string, string | number | null>;

export type ResolveResult = { ref: string } | { choices: LeanItem[] };

export interface RealmAdapter {
  /**
   * Syntax only, no I/O: the kind a ref names (and its account, for connected realms), or `invalid_ref`. Called on
   * every ref a call names before gate one, so a half-typed ref is never recorded, scoped or matched.
   */
  parseRef(ref: string): ParsedRef;
  /**
   * Refs as a person reads them, in one batch, with the caller's authority (the consent page runs it as the grantor):
   * kind, label, a short summary and what contains it. Unknown, malformed or invisible refs map to null.
   */
  describeRefs(ctx: RealmContext, refs: string[]): Promise<Record<string, RefDescription | null>>;
  list(ctx: RealmContext, input: { kind: string; filter: Filter; after: CursorState | null; limit: number }): Promise<{ items: LeanItem[]; next: CursorState | null }>;
  search(ctx: RealmContext, input: { kind: string | null; query: string; filter: Filter; after: CursorState | null; limit: number }): Promise<{ items: LeanItem[]; next: CursorState | null }>;
  /** A compact object by default; `full` adds heavy fields. Unknown or invisible refs throw `not_found`. */
  get(ctx: RealmContext, input: { ref: string; full: boolean }): Promise<Record<string, unknown>>;
  action(ctx: RealmContext, input: { action: ActionDef; ref: string | null; payload: Record<string, unknown> }): Promise<Record<string, unknown>>;
  upsert(ctx: RealmContext, input: { kind: string; ref: string | null; fields: Record<string, unknown> }): Promise<{ ref: string; created: boolean; object: Record<string, unknown> }>;
  delete(ctx: RealmContext, input: { ref: string }): Promise<{ ref: string; deleted: true }>;
  hostFile(ctx: RealmContext, input: { name: string; contentType: string; bytes: Uint8Array }): Promise<{ ref: string; file_id: string }>;
  /** Name → ref by a declared selector. Several matches return choices (the dispatcher answers `ambiguous_selector`). */
  resolve(ctx: RealmContext, input: { kind: string; selector: Record<string, string> }): Promise<ResolveResult>;
  /**
   * The refs that contain each given ref, nearest first (a thread → its document). Lets a grant scoped to a
   * container reach what is inside it. Read for gate one only (never returned), so no ACL applies; unknown or
   * malformed refs map to []. Realms whose objects contain nothing may omit it.
   */
  lineage?(ctx: RealmContext, input: { refs: string[] }): Promise<Record<string, string[]>>;
  /** The current bytes of a file ref, from the provider (a `liveUrl` GET being redeemed); gate two runs inside. */
  streamFile?(ctx: RealmContext, input: { ref: string; params?: Record<string, string> }): Promise<StreamedFile>;
  /** Bytes PUT to a `liveUrl` slot, handed to the provider under `ref`; returns what the upload made. */
  receiveUpload?(ctx: RealmContext, input: UploadInput): Promise<Record<string, unknown>>;
}

export type { CapabilityDoc } from "./capability-doc";
import type { CapabilityDoc } from "./capability-doc";
export type { StreamedFile, UploadInput } from "./streaming";
import type { StreamedFile, UploadInput } from "./streaming";

/**
 * A realm: its declaration, its code, optionally how it presents a call on the consent page (presenters.ts) and,
 * when it has its own (imported realms build theirs from cards), the documents capability search indexes.
 */
export type Realm = {
  manifest: RealmManifest;
  adapter: RealmAdapter;
  capabilityDocs?: CapabilityDoc[];
  presentRequest?: import("./presenters").RequestPresenter<RealmContext>;
  /** A realm that cannot be used now says why (a remote provider whose manifest no longer validates); its card shows it. */
  unavailable?: { reason: string };
};

/**
 * A built-in realm as its folder's `index.ts` exports it: the realm, and its demo data step (its `demo.ts`) if it
 * has one. The registry lists these; the demo seeds every `demo` in the registry's order.
 */
export type RealmModule = { realm: Realm; demo?: DemoSeedStep };
