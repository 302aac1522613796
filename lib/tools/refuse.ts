// A gate-one refusal as an answer: for an actor (unless the wall is the ceiling, a choice or a revoke), the
// consent request for this very ask, naming every item the call names; then its audit record and the denial.
import { eq } from "drizzle-orm";
import type { Tx } from "@/db/client";
import { users } from "@/db/schema";
import { recordAudit as writeAudit, type AuditInput } from "@/lib/audit/record";
import type { AuthContext } from "@/lib/authz/context";
import { recordConsentRequest } from "@/lib/authz/consent";
import { gateOneError } from "@/lib/authz/denials";
import type { GateOneDecision } from "@/lib/authz/gate";
import { env } from "@/lib/env";
import type { AppError } from "@/lib/errors";
import type { OperationKey } from "@/lib/realms/contract";
import type { NamedRef } from "./prepare";

export type Denied = Extract<GateOneDecision, { allow: false }>;
export type ToolAudit = AuditInput & { clientRequestId?: string };

/** Tool-call audit records also keep the caller's own X-Request-Id, when it sent one. */
export const recordAudit = (tx: Tx, { clientRequestId, ...input }: ToolAudit) =>
  writeAudit(tx, clientRequestId ? { ...input, details: { ...input.details, client_request_id: clientRequestId } } : input);

export type Refusal = {
  auth: AuthContext;
  tool: string;
  target: { namespace: string; ref: string | null };
  operation: OperationKey;
  /** The call's audit record, less its outcome. */
  audit: Omit<ToolAudit, "outcome">;
  now: Date;
};

export async function refuse(tx: Tx, r: Refusal, d: Denied & { grantorName?: string }, named: NamedRef[], subjectId: string | null): Promise<{ error: AppError }> {
  const { auth, target, operation } = r;
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
        namedRefs: named.map((n) => n.ref).filter((x) => x !== target.ref),
        requestId: auth.requestId,
        now: r.now,
      })
    ).id;
  }
  // The grantor's name came with gate one's read; read here only when it did not (a ref reached outside the grant).
  // Before the audit record: from the audit append to COMMIT, the transaction holds the tenant's chain head.
  const grantorName = auth.kind !== "actor" ? "" : (d.grantorName ?? (await userName(tx, auth.grantorId)));
  await recordAudit(tx, {
    ...r.audit,
    outcome: "deny",
    gate: "one",
    reason: d.code,
    subjectId,
    details: { tool: r.tool, wall: d.wall, ...(d.outsideScope?.length ? { outside_scope: d.outsideScope } : {}), ...(d.suspended ? { suspended: d.suspended.change } : {}) },
  });
  const facts = { namespace: target.namespace, operation, ref: target.ref, appUrl: env().appUrl, actorName: auth.kind === "actor" ? auth.actorName : "", grantorName };
  return { error: gateOneError(d, { ...facts, consentRequestId, namedRefs: named }) };
}

async function userName(tx: Tx, userId: string): Promise<string> {
  const [u] = await tx.select({ name: users.name }).from(users).where(eq(users.id, userId));
  return u?.name ?? "your user";
}
