// The adapter of every imported service: it runs operations (object_action) and nothing else — an
// imported realm has no objects of its own to list, get or change, so it has no refs either: every ref is
// `invalid_ref` and describes as null. Gate two is the service's own answer to the configured credential.
// (The owner's "only an exact grant covers it" mark is enforced by gate one.)
import { AppError } from "@/lib/errors";
import { authorityOf, type RealmAdapter } from "@/lib/realms/contract";
import { invalidRef, namespaceOfRef } from "@/lib/realms/refs";
import { MAX_FILE_BYTES } from "@/lib/delivery/port";
import { openCredential } from "./credentials";
import { compileRequest, execute } from "./execute";
import type { BuiltRealm, RealmRecord } from "./manifest";
import { sealedCredential } from "./store";

export type AdapterOptions = { timeoutMs?: number };

export function openApiAdapter(realm: RealmRecord, built: BuiltRealm, opts: AdapterOptions = {}): RealmAdapter {
  const onlyActions = () =>
    new AppError("invalid_input", `${realm.namespace} keeps no objects: it runs ${realm.title}'s operations. Use object_action(namespace: "${realm.namespace}", action, payload).`, {
      details: { namespace: realm.namespace },
    });
  return {
    // No ref names anything here (results carry no ref, and `get` accepts none): refuse each by its syntax.
    parseRef(ref) {
      const ns = namespaceOfRef(ref);
      if (ns !== realm.namespace) throw invalidRef(ref, `not a ref of ${realm.namespace}`);
      throw invalidRef(ref, `${realm.namespace} keeps no objects, so it has no refs`);
    },
    describeRefs: (_ctx, refs) => Promise.resolve(Object.fromEntries(refs.map((r) => [r, null]))),
    list: () => Promise.reject(onlyActions()),
    search: () => Promise.reject(onlyActions()),
    get: () => Promise.reject(onlyActions()),
    upsert: () => Promise.reject(onlyActions()),
    delete: () => Promise.reject(onlyActions()),
    hostFile: () => Promise.reject(onlyActions()),
    resolve: () => Promise.reject(onlyActions()),
    async action(ctx, { action, ref, payload }) {
      const contract = built.contracts.get(action.name);
      if (!contract) throw new AppError("not_found", `No operation ${action.name} in ${realm.namespace}.`, { details: { namespace: realm.namespace } });
      if (ref) throw new AppError("invalid_input", `${action.name} runs on the namespace, not on a ref.`);
      // Read per call, never cached: a rotated or removed credential takes effect at once.
      const sealed = await sealedCredential(ctx.tx, ctx.tenantId, realm.id);
      const cred = sealed ? openCredential(ctx.tenantId, realm.id, sealed) : null;
      const req = compileRequest(realm.baseUrl, contract, payload, cred);
      return execute(req, {
        timeoutMs: opts.timeoutMs,
        maxBytes: MAX_FILE_BYTES,
        delivery: ctx.delivery,
        namespace: realm.namespace,
        ownerUserId: authorityOf(ctx.principal),
        action: action.name,
      });
    },
  };
}
