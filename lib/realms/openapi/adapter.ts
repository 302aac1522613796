// The adapter of every imported service: it runs operations (object_action) and nothing else — an
// imported realm has no objects of its own to list, get or change. Gate two is the service's own answer
// to the configured credential, plus the owner's "needs explicit approval" mark on an operation.
import { and, arrayContains, eq, gt, isNull, or } from "drizzle-orm";
import { grants } from "@/db/schema";
import { AppError } from "@/lib/errors";
import { actionOperationKey, authorityOf, type RealmAdapter, type RealmContext } from "@/lib/realms/contract";
import { MAX_FILE_BYTES } from "@/lib/delivery/files";
import { openCredential } from "./credentials";
import { compileRequest, execute } from "./execute";
import type { BuiltRealm, RealmRecord } from "./manifest";
import { sealedCredential } from "./store";

export type AdapterOptions = { timeoutMs?: number };

/** An operation the owner marked "needs explicit approval" runs for an agent only under a grant naming it exactly. */
async function requireExactGrant(ctx: RealmContext, namespace: string, action: string): Promise<void> {
  if (ctx.principal.type !== "actor") return;
  const op = actionOperationKey(action);
  const [g] = await ctx.tx
    .select({ id: grants.id })
    .from(grants)
    .where(
      and(
        eq(grants.tenantId, ctx.tenantId),
        eq(grants.actorId, ctx.principal.actorId),
        eq(grants.namespace, namespace),
        arrayContains(grants.operations, [op]),
        isNull(grants.revokedAt),
        or(isNull(grants.expiresAt), gt(grants.expiresAt, ctx.now)),
      ),
    )
    .limit(1);
  if (!g) {
    throw new AppError("realm_denied", `The owner marked ${action} as needing explicit approval: a wildcard grant does not cover it.`, {
      details: {
        namespace,
        operation: op,
        reason: "approval_required",
        who_can_fix: "the user this agent acts for",
        retry_hint: "after the user grants exactly this operation",
        instructions: `Ask the user to approve ${op} for this agent by name, then call again.`,
      },
    });
  }
}

export function openApiAdapter(realm: RealmRecord, built: BuiltRealm, opts: AdapterOptions = {}): RealmAdapter {
  const onlyActions = () =>
    new AppError("invalid_input", `${realm.namespace} keeps no objects: it runs ${realm.title}'s operations. Use object_action(namespace: "${realm.namespace}", action, payload).`, {
      details: { namespace: realm.namespace },
    });
  return {
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
      if (built.approval.has(action.name)) await requireExactGrant(ctx, realm.namespace, action.name);
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
