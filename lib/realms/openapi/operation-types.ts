// What compiling an OpenAPI document gives: per operation, one light card (what capability search and people
// read) and one exact contract (what execution needs), and the document's title, servers, tags and warnings.
import type { Risk } from "@/lib/realms/contract";
import type { JsonObject, LowerMethod, SpecIssue } from "./spec";

export type HttpMethod = Uppercase<LowerMethod>;
export type ParamLocation = "path" | "query" | "header" | "cookie";

export type OperationCard = {
  /** The action name: the operationId as written, or `METHOD/path` where it has none (or an unusable one). */
  action: string;
  operation_id: string | null;
  method: HttpMethod;
  path: string;
  tag: string | null;
  /** Vendor categories (`x-github.category` / `x-category`), when the document has them. */
  category: string | null;
  subcategory: string | null;
  /** The tag's description from the document, for the catalog node. */
  group_description: string;
  summary: string;
  description: string;
  risk: Risk;
  deprecated: boolean;
  input_fields: string[];
  required_fields: string[];
  /** `owner*: string, per_page: integer, …` — what the input looks like, in one line. */
  input_digest: string;
  /** Hash of the exact contract: re-imports compare it to say an operation changed. */
  input_hash: string;
  scopes: string[];
  /** The operation declares security (its own or the document's), so the service expects a credential. Absent on cards stored before it was recorded. */
  auth_declared?: boolean;
  /**
   * Capability search only (optional: cards stored before it have none): the operation's whole description as
   * plain text, when it says more than its first paragraph (`description`).
   */
  search_description?: string;
};

export type ParamPlan = { name: string; in: ParamLocation; field: string; required: boolean; style: string; explode: boolean; json: boolean };
export type BodyEncoding = "json" | "form" | "text" | "unsupported";
/** `flat`: the body's properties sit beside the parameters; `wrapped`: the whole body is one field. */
export type BodyPlan = { mode: "flat" | "wrapped"; field: string | null; fields: string[]; contentType: string; encoding: BodyEncoding; required: boolean };
export type OperationContract = {
  method: HttpMethod;
  path: string;
  params: ParamPlan[];
  body: BodyPlan | null;
  input_schema: JsonObject;
  example: JsonObject;
  /** Media types of the success response, for choosing `Accept`. */
  accepts: string[];
  /** The success response's top-level shape (response-shape.ts); absent on contracts stored before it was recorded. */
  returns?: ResponseShape;
  /** Payload field → a note where its description contradicts the request Realmgate builds (notes.ts). */
  field_notes?: Record<string, string>;
  /** Notes on what the operation's text tells the caller to do that Realmgate does itself (headers it sets). */
  request_notes?: string[];
};

/** A type in one word: `integer`, `string|null`, `object`, `string[]`, `object[]`, `one of several`, `any`. */
export type TypeWord = string;
/** The top level of a body: an object's properties by type word, an array's item type, or a scalar's type. */
export type ShapeSummary =
  | { type: "object"; properties: Record<string, TypeWord>; required?: string[]; more_properties?: number }
  | { type: "array"; items: TypeWord; item_properties?: Record<string, TypeWord>; more_properties?: number }
  | { type: TypeWord };
/** The first success response: its status, media type and top-level shape (null when it has no body or no schema). */
export type ResponseShape = { status: number | string; content_type: string | null; shape: ShapeSummary | null };
export type CompiledOperation = { card: OperationCard; contract: OperationContract };
export type CompiledSpec = {
  title: string;
  description: string;
  servers: string[];
  tags: Map<string, string>;
  operations: CompiledOperation[];
  warnings: SpecIssue[];
  /** Operations left out of the realm (e.g. a header parameter whose name is not an HTTP header name). */
  dropped: { at: string; reason: string }[];
};
