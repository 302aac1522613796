// The messages of the Realmgate provider protocol as plain TypeScript types (docs/provider-protocol.md): the
// manifest (mirroring lib/realms/contract.ts's manifestSchema, snake_case as on the wire), the authorization
// context, each operation's input and result, answers and registration. Types only: no runtime code, so
// Realmgate's server and a provider can both import it without side effects.
import type { ProviderOperation } from "./protocol";

// --- The manifest ----------------------------------------------------------------------------------------
// What a provider writes: fields the contract defaults (`required`, `writable`, `filters`, `selectors`…) are
// optional here, exactly as zod's input type of manifestSchema.

export type FieldType = "string" | "text" | "number" | "integer" | "boolean" | "datetime" | "ref" | "string[]" | "ref[]" | "object" | "file";

export type ManifestField = {
  /** `^[a-z][a-z0-9_]*$` */
  name: string;
  type: FieldType;
  description: string;
  /** Default false. */
  required?: boolean;
  /** Known values (an open vocabulary when `open` is true). */
  enum?: string[];
  open?: boolean;
  /** Returned only with `get` `full: true` (large bodies). */
  heavy?: boolean;
  /** Settable through upsert. Default false. */
  writable?: boolean;
  /** For `ref`/`ref[]` fields: the kind referred to. */
  ref_kind?: string;
};

/** A JSON Schema object (draft 2020-12 subset). */
export type JsonSchemaObject = Record<string, unknown>;

export type KindOperation = "object.list" | "object.search" | "object.get" | "object.upsert" | "object.delete";

export type ManifestKind = {
  /** `<namespace>.<noun>`, e.g. `freight.shipment`. */
  name: string;
  label: string;
  one_liner: string;
  /** The ref template Realmgate checks refs with: `<namespace>:<literal>:<placeholder>…`, e.g. `freight:shipment:<id>`. */
  ref_pattern: string;
  /** At least one. */
  fields: ManifestField[];
  operations: KindOperation[];
  /** Field names list/search accept as filters. Default []. */
  filters?: string[];
  /** When present, `fields`' `writable`, `filters` and this kind's selectors' `by` must name exactly their properties. */
  schemas?: { create?: JsonSchemaObject; patch?: JsonSchemaObject; filter?: JsonSchemaObject; selector?: JsonSchemaObject };
};

export type ManifestSelector = {
  kind: string;
  /** The field a person names the object by: `title`, `number`, `status`… */
  by: string;
  description: string;
};

export type Risk = "read" | "write" | "destructive";

export type ManifestAction = {
  /** A letter or digit, then letters, digits, `_ . - /`. */
  name: string;
  label: string;
  description: string;
  /** The kind whose ref the action runs on; null for namespace-level actions. */
  target_kind: string | null;
  payload_schema: JsonSchemaObject;
  example: Record<string, unknown>;
  risk: Risk;
  /** Default []. */
  claims?: string[];
  /** What the action returns, in a sentence. */
  returns: string;
  /** An agent needs a grant naming exactly this action (`object.action.*` does not cover it). */
  exact_grant_only?: boolean;
  /** Payload paths that hold refs, gated like the target: `attachments[]`, `items[].ref`. Default []. */
  ref_paths?: string[];
};

export type CatalogNode = {
  /** Absolute, slash-separated: `/shipments/track`. The root is `/`. */
  path: string;
  label: string;
  description: string;
  keywords: string[];
  kinds: string[];
  operations: string[];
  children: CatalogNode[];
};

export type ServiceCard = {
  title: string;
  purpose: string;
  works_with: string;
  /** At least one. */
  touches: string[];
  /** A human label for every operation key the realm offers (base operations and actions). */
  operation_labels: Record<string, string>;
};

export type CompanionGroup = { operations: string[]; why: string };

export type Manifest = {
  /** 2–31 of `a-z0-9_`, starting with a letter; not a built-in realm's, not `import` or `resolve`. */
  namespace: string;
  realm_type: "remote";
  service_card: ServiceCard;
  /** At least one. */
  kinds: ManifestKind[];
  selectors?: ManifestSelector[];
  actions?: ManifestAction[];
  catalog: CatalogNode;
  claims?: { name: string; label: string }[];
  connection?: { api: string };
  companions?: CompanionGroup[];
  rules?: string[];
  delivery: { cursors: boolean; files: boolean; /** 1–200, default 50. */ max_page_size?: number };
};

/** `GET <base>/manifest`: at most 512 KiB. */
export type ManifestDocument = { protocol: "realmgate.provider/1"; manifest_version: string; manifest: Manifest };

// --- The authorization context ---------------------------------------------------------------------------

/**
 * A grant's resource scope, as Realmgate stores it (db/schema/authz.ts `ResourceScope`): exact refs (what their
 * lineage says they contain is covered too) or one connected account. Null in the context: the whole namespace.
 */
export type ResourceScope = { refs: string[]; account_id?: never } | { account_id: string; refs?: never };

export type AuthContext = {
  tenant_id: string;
  registration_id: string;
  /** The agent making the call; a person acting directly is `{ kind: "person" }` with `grantor` themself. */
  actor: { id: string; kind: string; name: string };
  /** The person whose authority the call projects: decide gate two on them. */
  grantor: { id: string; email: string };
  /** The operation key gate one allowed: `object.get`, `object.action.reschedule`… */
  operation: string;
  scope: ResourceScope | null;
  request_id: string;
  /** ISO 8601. */
  issued_at: string;
  /** ISO 8601, at most MAX_CONTEXT_SECONDS after `issued_at`. */
  expires_at: string;
  manifest_version: string;
};

// --- Operations ------------------------------------------------------------------------------------------

export type LeanItem = { ref: string; kind: string; label: string; summary?: string; updated_at?: string };
/** A flat object the provider chooses; Realmgate signs it and hands it back unchanged. */
export type Cursor = Record<string, string | number | null>;
export type Filter = Record<string, string | number | boolean | string[]>;
export type Page = { items: LeanItem[]; next: Cursor | null };
export type RefDescription = { kind: string; label: string; summary?: string; lineage: string[] };

/** In a `get` result, a `file` field: Realmgate replaces it with a signed link that calls `stream_file`. */
export type FileMarker = { $file: { name: string; content_type: string } };
/** In an `action` result: Realmgate replaces it with an upload slot (`upload: { method, url, expires_at, max_bytes }`). */
export type UploadMarker = { $upload: { name: string; params: Record<string, string> } };

/** Inputs as a handler receives them (file bytes decoded). */
export type OperationInputs = {
  about: Record<string, never>;
  list: { kind: string; filter: Filter; cursor: Cursor | null; limit: number };
  search: { kind: string | null; query: string; filter: Filter; cursor: Cursor | null; limit: number };
  get: { ref: string; full: boolean };
  action: { action: string; ref: string | null; payload: Record<string, unknown> };
  upsert: { kind: string; ref: string | null; fields: Record<string, unknown> };
  delete: { ref: string };
  host_file: { name: string; content_type: string; bytes: Uint8Array };
  resolve_selector: { kind: string; selector: Record<string, string> };
  describe_refs: { refs: string[] };
  lineage: { refs: string[] };
  stream_file: { ref: string };
  receive_upload: { ref: string; name: string; content_type: string; bytes: Uint8Array; params: Record<string, string> };
};

/** Inputs as they travel in the call body (file bytes base64). */
export type WireInputs = Omit<OperationInputs, "host_file" | "receive_upload"> & {
  host_file: { name: string; content_type: string; bytes_base64: string };
  receive_upload: { ref: string; name: string; content_type: string; bytes_base64: string; params: Record<string, string> };
};

/** What a `stream_file` handler returns; the kit answers the bytes themselves. */
export type StreamedFile = { content_type: string; filename: string; bytes: Uint8Array };

export type OperationResults = {
  about: { status: "ok"; notes: string[] };
  list: Page;
  search: Page;
  get: Record<string, unknown>;
  action: Record<string, unknown>;
  upsert: { ref: string; created: boolean; object: Record<string, unknown> };
  delete: { ref: string; deleted: true };
  host_file: { ref: string };
  resolve_selector: { ref: string } | { choices: LeanItem[] };
  describe_refs: Record<string, RefDescription | null>;
  lineage: Record<string, string[]>;
  stream_file: StreamedFile;
  receive_upload: Record<string, unknown>;
};

/** The body of `POST <base>/ops/<operation>`. */
export type CallBody<Op extends ProviderOperation = ProviderOperation> = { context: AuthContext; input: WireInputs[Op] };

// --- Answers ---------------------------------------------------------------------------------------------

/** The codes a provider may answer (the doc's table). Any other becomes `provider_unavailable` at Realmgate. */
export type ProviderErrorCode =
  | "invalid_input"
  | "invalid_ref"
  | "not_found"
  | "conflict"
  | "ambiguous_selector"
  | "realm_denied"
  | "payload_too_large"
  | "rate_limited"
  | "provider_unavailable";

/** The kit's own refusal of a call that fails verification (HTTP 401); Realmgate treats it as `provider_unavailable`. */
export type KitErrorCode = ProviderErrorCode | "bad_signature";

export type AnswerError = { code: string; message: string; details?: Record<string, unknown> };
/** HTTP 200. */
export type AnswerSuccess<T = unknown> = { manifest_version: string; result: T };
/** HTTP 4xx/5xx. */
export type AnswerFailure = { manifest_version: string; error: AnswerError };
export type Answer<T = unknown> = AnswerSuccess<T> | AnswerFailure;

// --- Registration ----------------------------------------------------------------------------------------

/** `POST <realmgate>/api/v1/remote-providers/register` with `Authorization: Bearer rgr_…`. */
export type RegistrationRequest = { url: string };
export type RegisteredProvider = { id: string; namespace: string; url: string; manifest_version: string; status: string };
/** Its answer (HTTP 201): the secret is shown once. */
export type RegistrationAnswer = { provider: RegisteredProvider; secret: string; tenant_id: string };
