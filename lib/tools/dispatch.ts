// The one dispatcher behind REST, MCP and the UI: parse → operation key → gate one → realm adapter (gate two
// inside) → delivery shaping → audit. Gate one is read in the same transaction as the effect; exactly one
// audit record is written per decision, in that transaction, whatever the outcome.
import { createHash } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { getDb, type Tx } from "@/db/client";
import { users } from "@/db/schema";
import { canonicalJson } from "@/lib/canonical-json";
import { recordAudit as writeAudit, type AuditInput } from "@/lib/audit/record";
import { allowedOperations, grantableOperations } from "@/lib/authz/allowed";
import { recordConsentRequest } from "@/lib/authz/consent";
import { auditPrincipalOf, principalOf, type AuthContext } from "@/lib/authz/context";
import { gateOneError } from "@/lib/authz/denials";
import { coversRef } from "@/lib/authz/gate";
import type { GateOneDecision } from "@/lib/authz/gate";
import { readAndDecideGateOne } from "@/lib/authz/gate-read";
import { decodeCursor, encodeCursor } from "@/lib/delivery/cursors";
import { deliveryPort, MAX_FILE_BYTES, type DeliveryCaller } from "@/lib/delivery/files";
import { env } from "@/lib/env";
import { AppError, isAppError, parseWith } from "@/lib/errors";
import { assertCleanText } from "@/lib/input/text";
import {
  actionNameSchema,
  actionOperationKey,
  operationKeysOf,
  riskOf,
  type ActionDef,
  type KindDef,
  type OperationKey,
  type ParsedRef,
  type Realm,
  type RealmContext,
  type ResourceScope,
} from "@/lib/realms/contract";
import { namespaceOfRef } from "@/lib/realms/refs";
import { listRealms, requireRealm } from "@/lib/realms/registry";
import { aboutRealm, aboutRoot, schemaKind, schemaNode, schemaOperation, schemaQuery, schemaRoot } from "./describe";
import { validatePayload } from "./payload";
import { toolInputSchemas, toolNames, toolOperation, type ToolInput, type ToolName } from "./schemas";

/** Results larger than this are delivered as a file URL, never inline. */
export const MAX_INLINE_RESULT_BYTES = 256 * 1024;
const DEFAULT_PAGE = 20;

export type DispatchOptions = { now?: () => Date };

/** Errors that are a realm's own refusal (gate two): audited as a deny of gate two. */
const GATE_TWO_CODES = new Set(["realm_denied", "needs_connected_account_consent"]);

/** Tool-call audit records also keep the caller's own X-Request-Id, when it sent one. */
const recordAudit = (tx: Tx, { clientRequestId, ...input }: AuditInput & { clientRequestId?: string }) =>
  writeAudit(tx, clientRequestId ? { ...input, details: { ...input.details, client_request_id: clientRequestId } } : input);

export function isToolName(name: string): name is ToolName {
  return (toolNames as string[]).includes(name);
}

export async function dispatch(auth: AuthContext, tool: string, rawInput: unknown, opts: DispatchOptions = {}): Promise<unknown> {
  if (!isToolName(tool)) {
    throw new AppError("not_found", `No tool "${String(tool).slice(0, 60)}".`, { details: { known_tools: toolNames } });
  }
  // NUL and lone surrogates never reach a query: MCP and the UI call here without the REST body reader.
  assertCleanText(rawInput, `${tool} input`);
  const input = parseWith(toolInputSchemas[tool], rawInput, `${tool} input`);
  const now = opts.now?.() ?? new Date();
  const db = await getDb();

  // Calls without a namespace (the realm list, cross-realm capability search) are decided per realm.
  if ((tool === "provider_about" || tool === "object_schema") && !(input as { namespace?: string }).namespace) {
    return crossRealm(auth, tool, input as ToolInput<"provider_about" | "object_schema">, now);
  }

  const outcome = await db.transaction(async (tx) => {
    const principal = principalOf(auth);
    const baseAudit = { tenantId: auth.tenantId, event: "tool.call" as const, principal: auditPrincipalOf(auth), requestId: auth.requestId, clientRequestId: auth.clientRequestId };

    // Before gate one: every ref the call names is parsed, and the call's shape checked for its operation. A
    // malformed ref is audited and answered `invalid_ref`; no consent request is ever made from it.
    let call: PreparedCall;
    try {
      call = await prepareCall(tx, auth, tool, input);
    } catch (err) {
      if (isAppError(err) && err.code === "invalid_ref") {
        const bad = typeof err.details.ref === "string" ? err.details.ref : null;
        await recordAudit(tx, {
          ...baseAudit,
          namespace: namespaceGuess(input),
          ref: bad ? truncateRef(bad) : null,
          outcome: "error",
          reason: "invalid_ref",
          details: { tool, why: err.message.slice(0, 200) },
        });
        return { error: err };
      }
      throw err;
    }
    const { realm, operation, target, namedRefs } = call;
    const audit = { ...baseAudit, namespace: target.namespace, operation, ref: target.ref };

    // Support staff read everything and change nothing, whatever the tool.
    if (auth.kind === "user" && auth.role === "support" && riskOf(realm.manifest, operation) !== "read") {
      await recordAudit(tx, { ...audit, outcome: "deny", gate: "one", reason: "forbidden", details: { tool, wall: "role" } });
      return {
        error: new AppError("forbidden", `Support staff review and do not change data: ${operation} on ${target.namespace} changes it.`, {
          details: { namespace: target.namespace, operation, wall: "role", who_can_open: "nobody: the support role is read-only", retry_hint: "do_not_retry" },
        }),
      };
    }

    const caller: DeliveryCaller = {
      tenantId: auth.tenantId,
      principalId: auth.kind === "user" ? auth.userId : auth.actorId,
      audit: auditPrincipalOf(auth),
      requestId: auth.requestId,
      appUrl: env().appUrl,
      now,
      grantId: null,
      operation: null,
    };
    const ctx: RealmContext = {
      tx,
      tenantId: auth.tenantId,
      principal,
      requestId: auth.requestId,
      now,
      appUrl: env().appUrl,
      grantScope: null,
      delivery: deliveryPort(tx, caller),
      gateRef: async () => {},
    };
    const exactOnly = realm.manifest.actions.find((a) => actionOperationKey(a.name) === operation)?.approval_required === true;
    const refs = [...(target.ref ? [target.ref] : []), ...namedRefs.map((n) => n.ref).filter((r) => r !== target.ref)];
    const lineage = realm.adapter.lineage ? (rs: string[]) => realm.adapter.lineage!(ctx, { refs: rs }) : undefined;
    const decision = await readAndDecideGateOne(tx, { tenantId: auth.tenantId, principal, namespace: target.namespace, operation, refs: [...new Set(refs)], parsed: call.parsed, now, exactOnly, lineage });
    /**
     * A gate-one refusal as an answer: for an actor (unless the wall is the ceiling, a choice or a revoke), the
     * consent request for this very ask, with every item the call names; then its audit record and the denial.
     */
    const refuse = async (d: Extract<GateOneDecision, { allow: false }>, named: NamedRef[], subjectId: string | null) => {
      let consentRequestId: string | undefined;
      if (auth.kind === "actor" && d.code !== "operation_disabled" && d.code !== "grant_revoked") {
        consentRequestId = (
          await recordConsentRequest(tx, {
            tenantId: auth.tenantId,
            actorId: auth.actorId,
            grantorId: auth.grantorId,
            namespace: target.namespace,
            operations: [operation],
            ref: target.ref,
            namedRefs: named.map((n) => n.ref).filter((r) => r !== target.ref),
            requestId: auth.requestId,
            now,
          })
        ).id;
      }
      await recordAudit(tx, {
        ...audit,
        outcome: "deny",
        gate: "one",
        reason: d.code,
        subjectId,
        details: { tool, wall: d.wall, ...(d.outsideScope?.length ? { outside_scope: d.outsideScope } : {}), ...(d.suspended ? { suspended: d.suspended.change } : {}) },
      });
      const grantorName = auth.kind === "actor" ? await userName(tx, auth.grantorId) : "";
      const facts = { namespace: target.namespace, operation, ref: target.ref, appUrl: env().appUrl, actorName: auth.kind === "actor" ? auth.actorName : "", grantorName };
      return { error: gateOneError(d, { ...facts, consentRequestId, namedRefs: named }) };
    };
    if (!decision.allow) return refuse(decision, namedRefs, decision.grantId);

    const idem = idempotencyOf(tool, input);
    const scope = decision.scope ?? null;
    ctx.grantScope = scope;
    caller.grantId = decision.grantId;
    caller.operation = operation;
    // Refs an adapter reaches by name (a title turned into a ref) must be covered by the same grant as everything
    // else the call named: of the grants that cover the call, only those covering this ref stay in the running.
    let candidates = decision.candidates;
    ctx.gateRef = async (ref, where) => {
      if (auth.kind === "user") return;
      const parsed = parseOwnRef(realm, ref, where ?? "a field");
      let contained: string[] | null = null;
      const still: typeof candidates = [];
      for (const c of candidates) {
        if (!c.scope || coversRef(c.scope, ref, [], parsed)) still.push(c);
        else {
          contained ??= (await lineage?.([ref]))?.[ref] ?? [];
          if (coversRef(c.scope, ref, contained, parsed)) still.push(c);
        }
      }
      if (still.length === 0) throw new OutsideScope(ref, where ?? "a field");
      candidates = still;
      caller.grantId = still[0]!.grantId;
    };

    try {
      const replay = idem ? await idempotentReplay(tx, auth, tool, idem) : undefined;
      if (replay !== undefined) {
        await recordAudit(tx, { ...audit, outcome: "allow", gate: null, subjectId: decision.grantId, details: { tool, replayed: true } });
        return { result: replay };
      }
      // A savepoint: a failed effect leaves nothing half-written, while its audit record still commits.
      const result = await tx.transaction(async (sp) => {
        const spCtx = { ...ctx, tx: sp };
        const r = await runTool(tool, input, realm, spCtx, { auth, scope, operation, call });
        const shaped = await shapeResult(r, spCtx, target.namespace);
        if (idem) await storeIdempotent(sp, auth, tool, idem, shaped);
        return shaped;
      });
      await recordAudit(tx, { ...audit, outcome: "allow", gate: null, subjectId: caller.grantId ?? decision.grantId, details: { tool } });
      return { result };
    } catch (err) {
      if (err instanceof OutsideScope && auth.kind === "actor") {
        // A name the adapter resolved led outside the grant (the effect was rolled back with its savepoint): the
        // same answer as a ref named outright — a consent request for this call with every item it touches.
        return refuse({ allow: false, code: "consent_required", wall: "grant", grantId: null, outsideScope: [err.ref] }, [...namedRefs, { ref: err.ref, where: err.where }], decision.grantId);
      }
      const code = isAppError(err) ? err.code : "internal_error";
      const gateTwo = GATE_TWO_CODES.has(code);
      await recordAudit(tx, {
        ...audit,
        outcome: gateTwo ? "deny" : "error",
        gate: gateTwo ? "two" : null,
        reason: code,
        subjectId: decision.grantId,
        details: { tool },
      });
      return { error: err };
    }
  });
  if ("error" in outcome) throw outcome.error;
  return outcome.result;
}

const truncateRef = (ref: string) => (ref.length > 80 ? `${ref.slice(0, 79)}…` : ref);

function namespaceGuess(input: Record<string, unknown>): string | null {
  if (typeof input.namespace === "string") return input.namespace.slice(0, 64);
  const m = typeof input.ref === "string" ? /^([a-z][a-z0-9_]{1,30}):/.exec(input.ref) : null;
  return m ? m[1]! : null;
}

/** A ref named inside a call must belong to the call's realm and parse there. */
function parseOwnRef(realm: Realm, ref: string, where: string): ParsedRef {
  const ns = realm.manifest.namespace;
  if (typeof ref !== "string" || !ref.startsWith(`${ns}:`)) {
    throw new AppError("invalid_ref", `${where} must hold a ${ns} ref.`, { details: { ref: String(ref).slice(0, 512), where } });
  }
  try {
    return realm.adapter.parseRef(ref);
  } catch (err) {
    if (isAppError(err) && err.code === "invalid_ref") throw new AppError("invalid_ref", `${where}: ${err.message}`, { details: { ...err.details, ref: ref.slice(0, 512), where } });
    throw err;
  }
}

/** Thrown by ctx.gateRef inside the effect's savepoint; the dispatcher answers it as consent_required. */
class OutsideScope extends Error {
  constructor(
    readonly ref: string,
    readonly where: string,
  ) {
    super(`${ref} (${where}) is outside the grant's scope`);
  }
}

async function userName(tx: Tx, userId: string): Promise<string> {
  const [u] = await tx.select({ name: users.name }).from(users).where(eq(users.id, userId));
  return u?.name ?? "your user";
}

/** The realm list and cross-realm capability search: one audit record, covering the realms listed. */
async function crossRealm(auth: AuthContext, tool: "provider_about" | "object_schema", input: ToolInput<"provider_about" | "object_schema">, now: Date) {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const realms = await listRealms(tx, auth.tenantId);
    const allowed = await allowedOperations(tx, auth, realms, now);
    const op: OperationKey = tool === "provider_about" ? "provider.about" : "object.schema";
    // Only realms where the caller may use this very operation are described.
    for (const [ns, ops] of allowed) if (!ops.has(op)) allowed.delete(ns);
    const s = input as ToolInput<"object_schema">;
    let result: unknown;
    if (tool === "provider_about") result = aboutRoot(realms, allowed);
    else if (s.query) result = await schemaQuery(realms, allowed, s.query, { limit: s.limit, asked: s.search_mode, db: tx, grantable: await grantableOperations(tx, auth, realms) });
    else if (s.schema_path || s.kind || s.operation) throw new AppError("invalid_input", "schema_path, kind and operation need a namespace.");
    else result = schemaRoot(realms, allowed);
    await recordAudit(tx, {
      tenantId: auth.tenantId,
      event: "tool.call",
      principal: auditPrincipalOf(auth),
      requestId: auth.requestId,
      clientRequestId: auth.clientRequestId,
      operation: op,
      outcome: "allow",
      details: { tool, realms: [...allowed.keys()] },
    });
    return result;
  });
}

type Target = { namespace: string; ref: string | null };

/** A ref a call names besides its target, and where (`fields.document`, `payload.attachments[0]`). */
export type NamedRef = { ref: string; where: string };

type PreparedCall = {
  realm: Realm;
  operation: OperationKey;
  target: Target;
  namedRefs: NamedRef[];
  parsed: Record<string, ParsedRef>;
  /** object_action: the action and its payload, validated against the contract before gate one. */
  action?: ActionDef;
  payload?: Record<string, unknown>;
};

/** Everything that can be said about a call without asking gate one: its realm, operation, refs and shape. */
async function prepareCall(tx: Tx, auth: AuthContext, tool: ToolName, input: Record<string, unknown>): Promise<PreparedCall> {
  const target = targetOf(tool, input);
  const realm = await requireRealm(tx, auth.tenantId, target.namespace);
  const m = realm.manifest;
  const operation = operationOf(tool, input, realm);
  const parsed: Record<string, ParsedRef> = {};
  const namedRefs: NamedRef[] = [];
  if (target.ref) parsed[target.ref] = parseOwnRef(realm, target.ref, "ref");
  const targetKind = target.ref ? parsed[target.ref]!.kind : null;
  const name = (ref: string, where: string, kind?: string) => {
    const p = parseOwnRef(realm, ref, where);
    if (kind && p.kind !== kind) throw new AppError("invalid_ref", `${where} takes a ${kind} ref; ${ref.slice(0, 80)} is a ${p.kind}.`, { details: { ref: ref.slice(0, 512), where, expected_kind: kind } });
    parsed[ref] = p;
    namedRefs.push({ ref, where });
  };
  /** A value in a ref field or payload path is read as a ref when it starts with the namespace; otherwise it is a name. */
  const looksLikeRef = (v: unknown): v is string => typeof v === "string" && v.startsWith(`${m.namespace}:`);
  const requireKind = (kind: string, op: "object.list" | "object.search" | "object.upsert") => {
    const k = m.kinds.find((x) => x.name === kind);
    if (!k) throw new AppError("invalid_input", `No kind ${kind} in ${m.namespace}.`, { details: { known_kinds: m.kinds.map((x) => x.name) } });
    if (!k.operations.includes(op)) throw new AppError("invalid_input", `${kind} does not support ${op}.`, { details: { kind, operations: k.operations } });
    return k;
  };

  switch (tool) {
    case "list_objects":
      requireKind((input as ToolInput<"list_objects">).kind, "object.list");
      break;
    case "search_objects": {
      const kind = (input as ToolInput<"search_objects">).kind;
      if (kind) requireKind(kind, "object.search");
      break;
    }
    case "object_action": {
      const s = input as ToolInput<"object_action">;
      const action = m.actions.find((x) => x.name === s.action)!;
      const payload = validatePayload(action.payload_schema, s.payload ?? {}, `${m.namespace} ${action.name}`);
      if (action.target_kind) {
        if (!s.ref && !(s.selector && (s.kind ?? action.target_kind))) throw new AppError("invalid_input", `${action.name} runs on a ${action.target_kind}: give its ref, or a selector.`, { details: { target_kind: action.target_kind } });
        if (targetKind && targetKind !== action.target_kind) {
          throw new AppError("invalid_input", `${action.name} runs on a ${action.target_kind}; ${target.ref} is a ${targetKind}.`, { details: { ref: target.ref, target_kind: action.target_kind } });
        }
      } else if (s.ref || s.selector) {
        throw new AppError("invalid_input", `${action.name} runs on the namespace, not on an object: omit ref and selector.`, { details: { action: action.name } });
      }
      // A payload path may also take a name (a column title): names are resolved, and gated, by the adapter.
      for (const path of action.ref_paths ?? []) for (const hit of valuesAt(payload, path)) if (looksLikeRef(hit.value)) name(hit.value, `payload.${hit.where}`);
      return { realm, operation, target, namedRefs, parsed, action, payload };
    }
    case "upsert_object": {
      const s = input as ToolInput<"upsert_object">;
      const kind = requireKind(s.kind, "object.upsert");
      if (targetKind && targetKind !== s.kind) throw new AppError("invalid_input", `${target.ref} is a ${targetKind}, not a ${s.kind}.`, { details: { ref: target.ref, kind: s.kind } });
      checkFields(kind, s.fields);
      // Ref fields may also take a name (a title): names are resolved, and gated, by the adapter (ctx.gateRef).
      for (const f of kind.fields) {
        const v = s.fields[f.name];
        if (f.type === "ref" && looksLikeRef(v)) name(v, `fields.${f.name}`, f.ref_kind);
        if (f.type === "ref[]" && Array.isArray(v)) v.forEach((x, i) => looksLikeRef(x) && name(x, `fields.${f.name}[${i}]`, f.ref_kind));
      }
      break;
    }
    case "host_file":
      if (!m.delivery.files) throw new AppError("invalid_input", `${m.namespace} does not store files.`);
      break;
  }
  return { realm, operation, target, namedRefs, parsed };
}

/**
 * What can be said of upsert fields from the kind's declaration alone, before consent is asked: each is a field
 * the kind lets callers set, of its declared type. The realm still checks the rest (lengths, references).
 */
function checkFields(kind: KindDef, fields: Record<string, unknown>) {
  const issues: { path: string; message: string }[] = [];
  const writable = new Map(kind.fields.filter((f) => f.writable).map((f) => [f.name, f]));
  for (const [name, value] of Object.entries(fields)) {
    const f = writable.get(name);
    if (!f) {
      issues.push({ path: `fields.${name}`, message: kind.fields.some((x) => x.name === name) ? "is read-only" : `is not a field of ${kind.name}` });
      continue;
    }
    if (value === null) continue;
    const want = f.type === "text" || f.type === "datetime" ? "string" : f.type;
    const ok =
      want === "string" ? typeof value === "string" : want === "integer" ? Number.isInteger(value) : want === "number" ? typeof value === "number" : want === "boolean" ? typeof value === "boolean" : true;
    if (!ok) issues.push({ path: `fields.${name}`, message: `must be ${want === "integer" ? "an integer" : `a ${want}`}` });
    else if (typeof value === "string" && f.enum && !f.open && !f.enum.includes(value)) issues.push({ path: `fields.${name}`, message: `must be one of ${f.enum.join(", ")}` });
  }
  if (issues.length) {
    throw new AppError("invalid_input", `Invalid ${kind.name} fields: ${issues[0]!.path} ${issues[0]!.message}.`, {
      details: { issues, writable_fields: [...writable.keys()] },
    });
  }
}

/** Values at a declared payload path (`a.b`, `items[].ref`), with where each was found. */
function valuesAt(root: unknown, path: string): { value: unknown; where: string }[] {
  let here: { value: unknown; where: string }[] = [{ value: root, where: "" }];
  for (const seg of path.split(".")) {
    const array = seg.endsWith("[]");
    const key = array ? seg.slice(0, -2) : seg;
    const next: { value: unknown; where: string }[] = [];
    for (const h of here) {
      if (typeof h.value !== "object" || h.value === null || !Object.hasOwn(h.value, key)) continue;
      const v = (h.value as Record<string, unknown>)[key];
      const at = h.where ? `${h.where}.${key}` : key;
      if (array) {
        if (Array.isArray(v)) v.forEach((x, i) => next.push({ value: x, where: `${at}[${i}]` }));
      } else next.push({ value: v, where: at });
    }
    here = next;
  }
  return here;
}

function targetOf(tool: ToolName, input: Record<string, unknown>): Target {
  const ref = typeof input.ref === "string" ? input.ref : null;
  const ns = typeof input.namespace === "string" ? input.namespace : null;
  if (ref) {
    const fromRef = namespaceOfRef(ref);
    if (ns && ns !== fromRef) throw new AppError("invalid_input", `The ref belongs to ${fromRef}, not ${ns}.`, { details: { ref: ref.slice(0, 120), namespace: ns } });
    return { namespace: fromRef, ref };
  }
  if (!ns) {
    const needs = tool === "delete_object" ? "a ref" : "a ref, or a namespace (with kind and selector)";
    throw new AppError("invalid_input", `${tool} needs ${needs}.`);
  }
  return { namespace: ns, ref: null };
}

function operationOf(tool: ToolName, input: Record<string, unknown>, realm: Realm): OperationKey {
  const m = realm.manifest;
  if (tool !== "object_action") {
    const op = toolOperation[tool] as OperationKey;
    if (!operationKeysOf(m).includes(op)) throw new AppError("invalid_input", `${m.namespace} does not offer ${op}.`, { details: { namespace: m.namespace, operation: op } });
    return op;
  }
  const action = String(input.action);
  const exact = m.actions.find((a) => a.name === action);
  if (!exact || !actionNameSchema.safeParse(action).success) {
    throw new AppError("invalid_input", `Unknown action ${JSON.stringify(action.slice(0, 80))} in ${m.namespace}. Action names match exactly.`, {
      details: { namespace: m.namespace, known_actions: m.actions.map((a) => a.name).slice(0, 100) },
    });
  }
  return actionOperationKey(exact.name);
}

type RunOpts = { auth: AuthContext; scope: ResourceScope | null; operation: OperationKey; call: PreparedCall };

async function runTool(tool: ToolName, raw: Record<string, unknown>, realm: Realm, ctx: RealmContext, o: RunOpts): Promise<unknown> {
  const m = realm.manifest;
  const a = realm.adapter;
  // Only the describing tools need what the caller may use here; the others were decided by gate one.
  const allowedHere = async () => (await allowedOperations(ctx.tx, o.auth, [realm], ctx.now)).get(m.namespace) ?? new Set<OperationKey>();
  const scope = o.scope;
  /** Which of these refs the grant's scope covers, themselves or through what contains them (exact refs, never prefixes). */
  const inScope = async (refs: string[]): Promise<Set<string>> => {
    if (!scope || refs.length === 0) return new Set(refs);
    const parsed = new Map<string, ParsedRef | undefined>(refs.map((r) => [r, safeParse(realm, r)]));
    // Only refs the scope does not name themselves need what contains them.
    const outside = refs.filter((r) => !coversRef(scope, r, [], parsed.get(r)));
    const lineage = outside.length && a.lineage ? await a.lineage(ctx, { refs: outside }) : {};
    return new Set(refs.filter((r) => coversRef(scope, r, lineage[r] ?? [], parsed.get(r))));
  };
  const resolveTarget = async (input: { ref?: string; kind?: string; selector?: Record<string, string> }): Promise<string> => {
    if (input.ref) return input.ref;
    if (!input.kind || !input.selector) throw new AppError("invalid_input", "Give a ref, or a kind with a selector.");
    const declared = m.selectors.filter((s) => s.kind === input.kind).map((s) => s.by);
    const unknown = Object.keys(input.selector).filter((k) => !declared.includes(k));
    if (unknown.length || declared.length === 0) {
      throw new AppError("invalid_input", `No selector ${unknown.join(", ") || "at all"} for ${input.kind}.`, { details: { kind: input.kind, selectors: declared } });
    }
    const r = await a.resolve(ctx, { kind: input.kind, selector: input.selector });
    if ("choices" in r) {
      const covered = await inScope(r.choices.map((c) => c.ref));
      const choices = r.choices.filter((c) => covered.has(c.ref));
      if (choices.length === 1) return choices[0]!.ref;
      if (choices.length === 0) throw new AppError("not_found", `Nothing in ${input.kind} matches that selector.`, { details: { selector: input.selector } });
      throw new AppError("ambiguous_selector", `${choices.length} objects match; pick one ref and call again.`, { details: { selector: input.selector, choices: choices.slice(0, 20) } });
    }
    return r.ref;
  };
  const scoped = async (ref: string) => {
    if (!(await inScope([ref])).has(ref)) throw new AppError("not_found", `No object ${ref} (or you may not see it).`, { details: { ref } });
    return ref;
  };
  const pageSize = (limit: number | undefined) => Math.min(limit ?? DEFAULT_PAGE, m.delivery.max_page_size);
  const principalId = o.auth.kind === "user" ? o.auth.userId : o.auth.actorId;

  switch (tool) {
    case "provider_about":
      return aboutRealm(m, await allowedHere());
    case "object_schema": {
      const s = raw as ToolInput<"object_schema">;
      const modes = [s.schema_path, s.query, s.kind, s.operation].filter((x) => x !== undefined).length;
      if (modes > 1) throw new AppError("invalid_input", "Give one of schema_path, query, kind or operation.");
      if (s.operation) return schemaOperation(m, s.operation);
      const allowed = await allowedHere();
      const grantable = (await grantableOperations(ctx.tx, o.auth, [realm])).get(m.namespace) ?? new Set<OperationKey>();
      if (s.query) {
        return await schemaQuery([realm], new Map([[m.namespace, allowed]]), s.query, {
          limit: s.limit,
          asked: s.search_mode,
          db: ctx.tx,
          grantable: new Map([[m.namespace, grantable]]),
        });
      }
      if (s.kind) return schemaKind(m, s.kind, allowed);
      return schemaNode(m, s.schema_path ?? "/", allowed, grantable);
    }
    case "list_objects":
    case "search_objects": {
      const s = raw as ToolInput<"list_objects"> & { query?: string };
      const binding = { tenantId: ctx.tenantId, principalId, tool, listing: { ns: m.namespace, kind: s.kind ?? null, filter: s.filter ?? {}, q: s.query ?? null } };
      const after = s.cursor ? decodeCursor(s.cursor, binding) : null;
      const limit = pageSize(s.limit);
      const page =
        tool === "list_objects"
          ? await a.list(ctx, { kind: s.kind, filter: s.filter ?? {}, after, limit })
          : await a.search(ctx, { kind: s.kind ?? null, query: s.query!, filter: s.filter ?? {}, after, limit });
      const covered = await inScope(page.items.map((i) => i.ref));
      return { items: page.items.filter((i) => covered.has(i.ref)), next_cursor: page.next ? encodeCursor(page.next, binding) : null };
    }
    case "get_object": {
      const s = raw as ToolInput<"get_object">;
      return a.get(ctx, { ref: await scoped(await resolveTarget(s)), full: s.full ?? false });
    }
    case "object_action": {
      const s = raw as ToolInput<"object_action">;
      const action = o.call.action!;
      const payload = o.call.payload!;
      const ref = action.target_kind ? await scoped(await resolveTarget({ ref: s.ref, kind: s.kind ?? action.target_kind, selector: s.selector })) : null;
      return a.action(ctx, { action, ref, payload });
    }
    case "upsert_object": {
      const s = raw as ToolInput<"upsert_object">;
      if (s.ref) await scoped(s.ref);
      return a.upsert(ctx, { kind: s.kind, ref: s.ref ?? null, fields: s.fields });
    }
    case "host_file": {
      const s = raw as ToolInput<"host_file">;
      const bytes = Buffer.from(s.content_base64, "base64");
      if (bytes.byteLength > MAX_FILE_BYTES) throw new AppError("payload_too_large", `Files are limited to ${MAX_FILE_BYTES} bytes.`, { details: { max_bytes: MAX_FILE_BYTES } });
      const hosted = await a.hostFile(ctx, { name: s.name, contentType: s.content_type, bytes: new Uint8Array(bytes) });
      return { ...hosted, ...(await ctx.delivery.fileUrl(hosted.file_id, { name: s.name })) };
    }
    case "delete_object": {
      const s = raw as ToolInput<"delete_object">;
      return a.delete(ctx, { ref: await scoped(s.ref) });
    }
  }
}

function safeParse(realm: Realm, ref: string): ParsedRef | undefined {
  try {
    return realm.adapter.parseRef(ref);
  } catch {
    return undefined;
  }
}

/** Large results become a file URL instead of megabytes inline. */
async function shapeResult(result: unknown, ctx: RealmContext, namespace: string): Promise<unknown> {
  const text = JSON.stringify(result);
  if (Buffer.byteLength(text) <= MAX_INLINE_RESULT_BYTES) return result;
  const authority = ctx.principal.type === "user" ? ctx.principal.userId : ctx.principal.grantorId;
  const stored = await ctx.delivery.storeFile({ namespace, name: "result.json", contentType: "application/json", bytes: new TextEncoder().encode(text), ownerUserId: authority });
  return { truncated: true, bytes: Buffer.byteLength(text), result: await ctx.delivery.fileUrl(stored.fileId, { name: "result.json" }) };
}

// --- idempotency -------------------------------------------------------------------------------------

type Idem = { key: string; bodyHash: string };

function idempotencyOf(tool: ToolName, input: Record<string, unknown>): Idem | null {
  if (tool !== "object_action" && tool !== "upsert_object" && tool !== "host_file") return null;
  const key = input.idempotency_key;
  if (typeof key !== "string") return null;
  const { idempotency_key: _omit, ...body } = input;
  return { key, bodyHash: createHash("sha256").update(canonicalJson(body)).digest("hex") };
}

async function idempotentReplay(tx: Tx, auth: AuthContext, tool: ToolName, idem: Idem): Promise<unknown | undefined> {
  const principalId = auth.kind === "user" ? auth.userId : auth.actorId;
  // Same key at once: the second waits for the first, then replays it.
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`${auth.tenantId}|${principalId}|${tool}|${idem.key}`}, 0))`);
  const rows = await tx.execute<{ body_hash: string; result: unknown }>(
    sql`select body_hash, result from idempotency_records where tenant_id = ${auth.tenantId} and principal_id = ${principalId} and tool = ${tool} and key = ${idem.key}`,
  );
  const row = (rows as unknown as { rows: { body_hash: string; result: unknown }[] }).rows[0];
  if (!row) return undefined;
  if (row.body_hash !== idem.bodyHash) {
    throw new AppError("idempotency_conflict", "This idempotency_key was used with a different request body.", { details: { idempotency_key: idem.key } });
  }
  return row.result;
}

async function storeIdempotent(tx: Tx, auth: AuthContext, tool: ToolName, idem: Idem, result: unknown) {
  const principalId = auth.kind === "user" ? auth.userId : auth.actorId;
  await tx.execute(
    sql`insert into idempotency_records (tenant_id, principal_id, tool, key, body_hash, result) values (${auth.tenantId}, ${principalId}, ${tool}, ${idem.key}, ${idem.bodyHash}, ${JSON.stringify(result ?? null)}::jsonb)`,
  );
}
