// One tool, defined in one place: its input (zod), what a model reads, its MCP hints, what it targets, its
// operation key, what can be checked before gate one (`prepare`) and what it does once let in (`run`).
// The dispatcher (./dispatch.ts) owns everything around `run`: the transaction, gate one, consent, audit.
import type { z } from "zod";
import type { Tx } from "@/db/client";
import type { AppError } from "@/lib/errors";
import type { AuthContext } from "@/lib/authz/context";
import type { BaseOperationKey, KindDef, OperationKey, Realm, RealmContext, RealmManifest } from "@/lib/realms/contract";

/** MCP tool annotations: hints for clients that auto-approve reads. */
export type ToolAnnotations = { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };

/**
 * What a call targets: `ref` (a ref, always), `ref_or_namespace` (a ref, or a namespace with kind and selector),
 * `namespace` (a namespace, or the ref of the object to change), `namespace_or_all` (a namespace, or every realm).
 */
export type TargetRule = "ref" | "ref_or_namespace" | "namespace" | "namespace_or_all";

/** What `prepare` may ask about a call before gate one. */
export type PrepareCtx = {
  realm: Realm;
  manifest: RealmManifest;
  target: { namespace: string; ref: string | null };
  /** The kind the target ref's syntax names (null: no ref). */
  targetKind: string | null;
  /** Record a ref the call names besides its target, where it was named; with `kind`, it must be a ref of that kind. */
  name(ref: string, where: string, kind?: string): void;
  /** A value read as a ref (it starts with the namespace); otherwise it is a name the adapter resolves. */
  looksLikeRef(v: unknown): v is string;
  /** The kind, which must support the operation. */
  requireKind(kind: string, op: "object.list" | "object.search" | "object.upsert"): KindDef;
};

/** What `run` gets once gate one let the call in: the realm context and the grant's reach. */
export type RunCtx<P> = {
  realm: Realm;
  manifest: RealmManifest;
  ctx: RealmContext;
  auth: AuthContext;
  operation: OperationKey;
  prepared: P;
  principalId: string;
  /** Which of these refs the grant's scope covers, themselves or through what contains them. */
  inScope(refs: string[]): Promise<Set<string>>;
  /** A ref, or the one object a kind's selector names within the grant's scope. */
  resolveTarget(input: { ref?: string; kind?: string; selector?: Record<string, string> }): Promise<string>;
  /** The ref, if the grant's scope covers it; otherwise `not_found`. */
  scoped(ref: string): Promise<string>;
  pageSize(limit: number | undefined): number;
  /** What the caller may use, and could be granted, in this realm (only the describing tools need them). */
  allowedHere(): Promise<Set<OperationKey>>;
  grantableHere(): Promise<ReadonlySet<OperationKey>>;
  /** What in this realm asks a person each call (ask mode): callable, never covered by a grant. */
  askingHere(): Promise<ReadonlySet<OperationKey>>;
  /** object_schema's materialize: add the action to the calling agent's working set, or remove it; the catalog proof (./working-set.ts). */
  materialize(operation: string, on: boolean): Promise<unknown>;
  /** Details for the call's audit record (an allowed call's: e.g. what a materialize changed). */
  note(details: Record<string, unknown>): void;
  /** The tool of a base operation and its input's JSON Schema (for object_schema's operation contracts). */
  toolOf(op: string): { name: string; inputSchema: Record<string, unknown> } | undefined;
};

/**
 * A call without a namespace (`namespace_or_all`): every realm of the tenant, what the caller may use in each now
 * (`allowed`) and what it could be granted (`grantable`: ceiling ∩ its grantor's choices).
 */
export type AllRealmsCtx = {
  tx: Tx;
  auth: AuthContext;
  realms: Realm[];
  allowed: Map<string, ReadonlySet<OperationKey>>;
  grantable: Map<string, ReadonlySet<OperationKey>>;
  /** Per realm, what asks a person each call (ask mode). */
  asking: Map<string, ReadonlySet<OperationKey>>;
};

export type ToolDef<N extends string = string, S extends z.ZodType = z.ZodType, P = unknown> = {
  name: N;
  input: S;
  /** One line, written for a model. */
  description: string;
  annotations?: ToolAnnotations;
  target: TargetRule;
  /** What a call naming no target is told it needs, when the target rule's wording does not fit the tool. */
  needs?: string;
  /** The operation key: fixed, or read from the input (object_action's `object.action.<action>`). */
  operation: BaseOperationKey | ((input: z.infer<S>) => OperationKey);
  /** Calls carrying an `idempotency_key` replay their first result. */
  idempotent?: boolean;
  /** Checks that need only the realm's declarations (shape, refs named), before gate one; returns what `run` needs. */
  prepare?(p: PrepareCtx, input: z.infer<S>): P;
  run(r: RunCtx<P>, input: z.infer<S>): Promise<unknown>;
  /** `namespace_or_all` without a namespace. */
  runAll?(a: AllRealmsCtx, input: z.infer<S>): Promise<unknown>;
};

export function defineTool<const N extends string, S extends z.ZodType, P = undefined>(def: ToolDef<N, S, P>): ToolDef<N, S, P> {
  return def;
}

/** `namespace` is null for a call over every realm (provider_about, object_schema without a namespace). */
export type ResolvedOperation = { namespace: string | null; ref: string | null; operation: OperationKey };
/** What could not be resolved; `operation` when the tool alone names it. */
export type UnresolvedOperation = { error: AppError; operation: OperationKey | null };
