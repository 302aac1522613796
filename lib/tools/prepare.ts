// Everything that can be said about a call without asking gate one: its realm, operation, the refs it names
// (each parsed by the realm) and its shape as the realm declares it. A malformed ref is `invalid_ref`.
import type { Tx } from "@/db/client";
import type { AuthContext } from "@/lib/authz/context";
import { AppError, isAppError } from "@/lib/errors";
import { actionNameSchema, actionOperationKey, operationKeysOf, type KindDef, type OperationKey, type ParsedRef, type Realm } from "@/lib/realms/contract";
import { callerOperations } from "@/lib/authz/allowed";
import { findRealm, requireRealm } from "@/lib/realms/registry";
import type { PrepareCtx, ResolvedOperation, ToolDef, UnresolvedOperation } from "./define";
import { checkKindSchema } from "./payload";

/** A ref a call names besides its target, and where (`fields.document`, `payload.attachments[0]`). */
export type NamedRef = { ref: string; where: string };

export type PreparedCall = {
  realm: Realm;
  operation: OperationKey;
  target: { namespace: string; ref: string | null };
  namedRefs: NamedRef[];
  parsed: Record<string, ParsedRef>;
  /** What the tool's `prepare` returned, for its `run`. */
  prepared: unknown;
};

export async function prepareCall(tx: Tx, auth: AuthContext, def: ToolDef, input: Record<string, unknown>, resolved: ResolvedOperation | UnresolvedOperation): Promise<PreparedCall> {
  if ("error" in resolved) throw resolved.error;
  return prepareCallIn(await requireRealm(tx, auth.tenantId, resolved.namespace!), def, input, resolved);
}

/** `prepareCall` in a realm already found: no statement. */
export function prepareCallIn(realm: Realm, def: ToolDef, input: Record<string, unknown>, resolved: ResolvedOperation): PreparedCall {
  const target = { namespace: resolved.namespace!, ref: resolved.ref };
  const m = realm.manifest;
  const operation = offered(realm, resolved.operation);
  const parsed: Record<string, ParsedRef> = {};
  const namedRefs: NamedRef[] = [];
  if (target.ref) parsed[target.ref] = parseOwnRef(realm, target.ref, "ref");
  const p: PrepareCtx = {
    realm,
    manifest: m,
    target,
    targetKind: target.ref ? parsed[target.ref]!.kind : null,
    name(ref, where, kind) {
      const r = parseOwnRef(realm, ref, where);
      if (kind && r.kind !== kind) throw new AppError("invalid_ref", `${where} takes a ${kind} ref; ${ref.slice(0, 80)} is a ${r.kind}.`, { details: { ref: ref.slice(0, 512), where, expected_kind: kind } });
      parsed[ref] = r;
      namedRefs.push({ ref, where });
    },
    looksLikeRef: (v: unknown): v is string => typeof v === "string" && v.startsWith(`${m.namespace}:`),
    requireKind(kind, op) {
      const k = m.kinds.find((x) => x.name === kind);
      if (!k) throw new AppError("invalid_input", `No kind ${kind} in ${m.namespace}.`, { details: { known_kinds: m.kinds.map((x) => x.name) } });
      if (!k.operations.includes(op)) throw new AppError("invalid_input", `${kind} does not support ${op}.`, { details: { kind, operations: k.operations } });
      return k;
    },
  };
  const prepared = def.prepare?.(p, input);
  return { realm, operation, target, namedRefs, parsed, prepared };
}

/** The operation, as the realm offers it: a base operation it declares, or one of its actions, named exactly. */
function offered(realm: Realm, op: OperationKey): OperationKey {
  const m = realm.manifest;
  if (!op.startsWith("object.action.")) {
    if (!operationKeysOf(m).includes(op)) throw new AppError("invalid_input", `${m.namespace} does not offer ${op}.`, { details: { namespace: m.namespace, operation: op } });
    return op;
  }
  const action = op.slice("object.action.".length);
  const exact = m.actions.find((a) => a.name === action);
  if (!exact || !actionNameSchema.safeParse(action).success) {
    throw new AppError("invalid_input", `Unknown action ${JSON.stringify(action.slice(0, 80))} in ${m.namespace}. Action names match exactly.`, {
      details: { namespace: m.namespace, known_actions: m.actions.map((a) => a.name).slice(0, 100) },
    });
  }
  return actionOperationKey(exact.name);
}

/** A ref named inside a call must belong to the call's realm and parse there. */
export function parseOwnRef(realm: Realm, ref: string, where: string): ParsedRef {
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

/** A selector, against what its kind declares for selectors (when the kind is known and declares a schema). */
export function checkSelector(p: PrepareCtx, kind: string | undefined, selector: Record<string, string> | undefined) {
  const k = kind && selector ? p.manifest.kinds.find((x) => x.name === kind) : undefined;
  if (k && selector) checkKindSchema(k, "selector", selector, "selector");
}

/**
 * What can be said of upsert fields from the kind's declaration alone, before consent is asked: each is a field
 * the kind lets callers set, of its declared type. The realm still checks the rest (lengths, references).
 */
export function checkFields(kind: KindDef, fields: Record<string, unknown>) {
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
export function valuesAt(root: unknown, path: string): { value: unknown; where: string }[] {
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

/**
 * A call that does not fit a realm is answered in the realm's own words (its kinds, actions, fields, payload
 * rules) only to a caller who may read its description. To an agent that may not — the owner closed the realm's
 * description, or describing is turned off for it — the details are withheld: the same code, a message that says
 * where the description is, nothing of the catalog. Asked only on this error path.
 */
export async function withheldUnlessDescribed(tx: Tx, auth: AuthContext, namespace: string, err: AppError, now: Date): Promise<AppError> {
  if (auth.kind !== "actor" || (err.code !== "invalid_input" && err.code !== "not_found")) return err;
  const realm = await findRealm(tx, auth.tenantId, namespace);
  if (!realm) return err;
  const { allowed } = await callerOperations(tx, auth, [realm], now);
  if (allowed.get(namespace)?.has("object.schema")) return err;
  return new AppError(
    err.code,
    `This call does not fit ${namespace}. What ${namespace} offers is described by object_schema(namespace: "${namespace}"), which is not open to you: calling it asks your user (consent_required) unless it is turned off for you.`,
    { details: { namespace, withheld: "the realm's description" } },
  );
}
