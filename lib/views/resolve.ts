// Discovery: which realm owns a ref, a kind or an operation (GET /api/v1/realms/resolve). A person of the tenant
// may ask about any realm of it; an agent about the realms it could be granted something in. Refs are checked by
// syntax only (the realm's own parser, no call), so resolving names nothing that exists.
import type { Executor } from "@/db/client";
import { grantableOperations } from "@/lib/authz/allowed";
import type { AuthContext } from "@/lib/authz/context";
import { AppError, isAppError } from "@/lib/errors";
import { isOperationKey, operationKeysOf, type Realm } from "@/lib/realms/contract";
import { listRealms } from "@/lib/realms/registry";

export type ResolveQuery = { ref?: string; kind?: string; operation?: string; namespace?: string };
export type ResolveMatch = { namespace: string; realm_type: string; title: string; kind?: string; operation?: string; label?: string };

export function resolveQuery(params: URLSearchParams): ResolveQuery {
  const q: ResolveQuery = {};
  for (const key of ["ref", "kind", "operation", "namespace"] as const) {
    const v = params.get(key);
    if (v === null) continue;
    if (v.length === 0 || v.length > 1024) throw new AppError("invalid_input", `${key} must be 1–1024 characters.`, { details: { field: key } });
    q[key] = v;
  }
  if (Object.keys(q).length !== 1) throw new AppError("invalid_input", "Ask about exactly one of ref, kind, operation or namespace.", { details: { fields: ["ref", "kind", "operation", "namespace"] } });
  return q;
}

async function visibleRealms(db: Executor, auth: AuthContext): Promise<Realm[]> {
  const realms = await listRealms(db, auth.tenantId);
  if (auth.kind === "user") return realms;
  const grantable = await grantableOperations(db, auth, realms);
  return realms.filter((r) => (grantable.get(r.manifest.namespace)?.size ?? 0) > 0);
}

const base = (r: Realm) => ({ namespace: r.manifest.namespace, realm_type: r.manifest.realm_type, title: r.manifest.service_card.title });

export async function resolveRealm(db: Executor, auth: AuthContext, q: ResolveQuery): Promise<{ query: ResolveQuery; matches: ResolveMatch[] }> {
  const realms = await visibleRealms(db, auth);
  const matches: ResolveMatch[] = [];
  if (q.ref !== undefined) {
    const ns = q.ref.split(":", 1)[0]!;
    const realm = realms.find((r) => r.manifest.namespace === ns);
    if (realm) {
      try {
        matches.push({ ...base(realm), kind: realm.adapter.parseRef(q.ref).kind });
      } catch (err) {
        if (!isAppError(err)) throw err;
        throw new AppError("invalid_ref", `"${q.ref.slice(0, 120)}" is not a well-formed ${ns} ref.`, { details: { ref: q.ref.slice(0, 200), namespace: ns, expected: realm.manifest.kinds.map((k) => k.ref_pattern) } });
      }
    }
  } else if (q.kind !== undefined) {
    for (const r of realms) {
      const k = r.manifest.kinds.find((x) => x.name === q.kind);
      if (k) matches.push({ ...base(r), kind: k.name, label: k.label });
    }
  } else if (q.operation !== undefined) {
    // `object.action.reschedule`, or `<namespace>/<operation key>`.
    const slash = q.operation.indexOf("/");
    const [ns, op] = slash > 0 && !q.operation.startsWith("object.") ? [q.operation.slice(0, slash), q.operation.slice(slash + 1)] : [null, q.operation];
    if (!isOperationKey(op)) throw new AppError("invalid_input", `"${op.slice(0, 120)}" is not an operation key (object.get, object.action.<name>…).`, { details: { field: "operation" } });
    for (const r of realms) {
      if (ns && r.manifest.namespace !== ns) continue;
      if (operationKeysOf(r.manifest).includes(op)) matches.push({ ...base(r), operation: op, label: r.manifest.service_card.operation_labels[op] ?? op });
    }
  } else {
    const r = realms.find((x) => x.manifest.namespace === q.namespace);
    if (r) matches.push(base(r));
  }
  if (!matches.length) throw new AppError("not_found", "No realm you could use owns that.", { details: { query: q, known_namespaces: realms.map((r) => r.manifest.namespace) } });
  return { query: q, matches };
}
