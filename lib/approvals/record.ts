// Single-call approvals, the agent's side: an operation in ask mode answers `approval_required` with a pending
// approval bound to the exact call (actor, tool, operation, target, SHA-256 of the canonical input); the retry
// naming it runs once (consumed in the effect's transaction, with its result kept) and later retries replay the
// result. What the person sees and decides is in ./decide.ts.
import { createHash } from "node:crypto";
import { and, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { approvals, type Approval } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";
import { boundedInput } from "@/lib/authz/consent";
import type { ActorContext } from "@/lib/authz/context";
import type { ApprovalDenial, ApprovalFacts } from "@/lib/authz/gate";
import { canonicalJson } from "@/lib/canonical-json";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";

export const approvalUrl = (id: string) => `${env().appUrl}/approvals/${id}`;

/** The tool-input fields that are not part of what a person approves. */
const NOT_APPROVED = new Set(["approval_id", "idempotency_key"]);

/** SHA-256 (hex) of the canonical JSON of the tool input without `approval_id` and `idempotency_key`. */
export function payloadDigest(input: Record<string, unknown>): string {
  const rest = Object.fromEntries(Object.entries(input).filter(([k]) => !NOT_APPROVED.has(k)));
  return createHash("sha256").update(canonicalJson(rest)).digest("hex");
}

/** The most of a call's input an approval keeps, in bytes of canonical JSON: a person reads every byte they approve. */
export const APPROVAL_INPUT_MAX_BYTES = 64 * 1024;

/** How many approvals one agent may have waiting at once: more would flood its person. */
export const MAX_PENDING_APPROVALS = 10;

/** The approved input without the fields that are not approved, as the approval keeps it (never cut). */
function keptInput(input: Record<string, unknown>): { value: Record<string, unknown> } {
  const rest = Object.fromEntries(Object.entries(input).filter(([k]) => !NOT_APPROVED.has(k)));
  const kept = boundedInput(rest, APPROVAL_INPUT_MAX_BYTES);
  if (!kept || !("value" in kept)) {
    throw new AppError("payload_too_large", `A call that waits for a person's approval may carry at most ${APPROVAL_INPUT_MAX_BYTES / 1024} KB, so they can read all of it; this one is larger.`, {
      details: { max_bytes: APPROVAL_INPUT_MAX_BYTES, ...(kept && "bytes" in kept ? { bytes: kept.bytes } : {}), retry_hint: "do_not_retry" },
    });
  }
  return kept;
}

export type ApprovalAskCall = {
  auth: ActorContext;
  tool: string;
  namespace: string;
  operation: string;
  ref: string | null;
  input: Record<string, unknown>;
  now: Date;
};

/**
 * The pending approval for this exact call: the live one already waiting (the same actor, tool, operation and
 * digest: an agent retrying before the person decided does not pile up requests), else a new one, audited.
 */
export async function requestApproval(tx: Executor, c: ApprovalAskCall): Promise<Approval> {
  const digest = payloadDigest(c.input);
  const [waiting] = await tx
    .select()
    .from(approvals)
    .where(
      and(
        eq(approvals.tenantId, c.auth.tenantId),
        eq(approvals.actorId, c.auth.actorId),
        eq(approvals.tool, c.tool),
        eq(approvals.operation, c.operation),
        eq(approvals.namespace, c.namespace),
        eq(approvals.payloadDigest, digest),
        // A selector may name another object by now: that is another approval.
        c.ref === null ? isNull(approvals.ref) : eq(approvals.ref, c.ref),
        eq(approvals.status, "pending"),
        gt(approvals.expiresAt, c.now),
      ),
    )
    .limit(1);
  if (waiting) return waiting;
  const input = keptInput(c.input);
  const [{ n }] = (await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(approvals)
    .where(and(eq(approvals.tenantId, c.auth.tenantId), eq(approvals.actorId, c.auth.actorId), eq(approvals.status, "pending"), gt(approvals.expiresAt, c.now)))) as [{ n: number }];
  if (n >= MAX_PENDING_APPROVALS) {
    throw new AppError("rate_limited", `${n} of this agent's calls already wait for its person's approval; wait until they decide (or those lapse) before asking for more.`, {
      details: { pending_approvals: n, max_pending: MAX_PENDING_APPROVALS },
      headers: { "Retry-After": "60" },
    });
  }
  const [row] = await tx
    .insert(approvals)
    .values({
      id: newId("apr"),
      tenantId: c.auth.tenantId,
      actorId: c.auth.actorId,
      grantorId: c.auth.grantorId,
      credentialId: c.auth.credentialId,
      tool: c.tool,
      namespace: c.namespace,
      operation: c.operation,
      ref: c.ref,
      payloadDigest: digest,
      input,
      expiresAt: new Date(c.now.getTime() + env().REALMGATE_APPROVAL_TTL),
      createdAt: c.now,
    })
    .returning();
  await recordAudit(tx, {
    tenantId: c.auth.tenantId,
    event: "approval.requested",
    principal: { type: "actor", actorId: c.auth.actorId, grantorId: c.auth.grantorId },
    requestId: c.auth.requestId,
    namespace: c.namespace,
    operation: c.operation,
    ref: c.ref,
    outcome: "ok",
    subjectId: row!.id,
    details: { approval_id: row!.id, tool: c.tool, payload_digest: digest, expires_at: row!.expiresAt.toISOString() },
  });
  return row!;
}

/** An approval whose time ran out while pending or approved: marked expired (once), audited. */
export async function expireApproval(
  tx: Executor,
  a: Pick<ApprovalFacts, "id" | "status" | "namespace" | "operation" | "expiresAt"> & { ref?: string | null },
  at: { tenantId: string; requestId?: string | null },
  now: Date,
): Promise<void> {
  if (a.status !== "pending" && a.status !== "approved") return;
  await tx.update(approvals).set({ status: "expired" }).where(and(eq(approvals.id, a.id), inArray(approvals.status, ["pending", "approved"])));
  await recordAudit(tx, {
    tenantId: at.tenantId,
    event: "approval.expired",
    principal: { type: "system" },
    requestId: at.requestId ?? null,
    namespace: a.namespace,
    operation: a.operation,
    ref: a.ref ?? null,
    outcome: "ok",
    subjectId: a.id,
    details: { approval_id: a.id, was: a.status, expired_at: a.expiresAt.toISOString(), noticed_at: now.toISOString() },
  });
}

/** The approved call ran: the approval is used up, in the effect's transaction, keeping the result for replays. */
export async function consumeApproval(tx: Executor, id: string, result: unknown, auth: ActorContext, facts: { namespace: string; operation: string; ref: string | null }, now: Date) {
  await tx.update(approvals).set({ status: "consumed", consumedAt: now, result: result ?? null }).where(and(eq(approvals.id, id), eq(approvals.status, "approved")));
  await recordAudit(tx, {
    tenantId: auth.tenantId,
    event: "approval.consumed",
    principal: { type: "actor", actorId: auth.actorId, grantorId: auth.grantorId },
    requestId: auth.requestId,
    namespace: facts.namespace,
    operation: facts.operation,
    ref: facts.ref,
    outcome: "ok",
    subjectId: id,
    details: { approval_id: id },
  });
}

/** What an approval answer says of the approval: its id, page, expiry and digest. */
export const approvalOffer = (a: Pick<Approval, "id" | "expiresAt" | "payloadDigest">, grantorName: string) => ({
  approval_id: a.id,
  approval_url: approvalUrl(a.id),
  expires_at: a.expiresAt.toISOString(),
  payload_digest: a.payloadDigest,
  who_can_open: grantorName,
  retry_hint: "retry_after_approval" as const,
  instructions: `Nothing ran. Ask ${grantorName} to approve this exact call at ${approvalUrl(a.id)}, then send the same call again with "approval_id": "${a.id}" added (any other change to the input needs a new approval).`,
});

type Facts = { namespace: string; operation: string; ref: string | null; grantorName: string; actorName: string };

/** The pending approval as the answer to the call that needs it. */
export function approvalRequiredError(a: Approval, f: Facts): AppError {
  return new AppError("approval_required", `${f.operation} on ${f.namespace} waits for ${f.grantorName}'s approval of this exact call.`, {
    details: { namespace: f.namespace, operation: f.operation, ref: f.ref, gate: "one", wall: "approval", ...approvalOffer(a, f.grantorName) },
  });
}

/** The answer for a call naming an approval that does not let it run. `fresh`: the new offer an expired one comes with. */
export function approvalRefusal(d: ApprovalDenial, f: Facts & { approvalId: string }, fresh?: Approval): AppError {
  const base = { namespace: f.namespace, operation: f.operation, ref: f.ref, gate: "one", wall: "approval", approval_id: f.approvalId };
  const a = d.approval;
  switch (d.code) {
    case "approval_unknown":
      return new AppError("not_found", `No approval ${f.approvalId.slice(0, 40)} for this agent.`, { details: { ...base, retry_hint: "do_not_retry" } });
    case "approval_mismatch":
      return new AppError("approval_mismatch", `Approval ${f.approvalId} was given for a different call; it covers exactly the input that was approved.`, {
        details: { ...base, approved: a ? { tool: a.tool, namespace: a.namespace, operation: a.operation, payload_digest: a.payloadDigest } : null, retry_hint: "do_not_retry", instructions: "Send the approved input unchanged, or the new call without approval_id to ask for a new approval." },
      });
    case "approval_denied":
      return new AppError("approval_denied", `${f.grantorName} denied this call${a?.note ? `: “${a.note}”` : "."}`, {
        details: { ...base, note: a?.note ?? null, who_can_open: f.grantorName, retry_hint: "do_not_retry" },
      });
    case "approval_expired": {
      const why = a?.status === "void" ? `stopped counting (${a.voidReason ?? "voided"})` : "expired before it was used";
      return new AppError("approval_expired", `Approval ${f.approvalId} ${why}.`, {
        details: {
          ...base,
          ...(a?.status === "void" ? { voided: a.voidReason } : {}),
          retry_hint: "retry_after_approval",
          ...(fresh ? { approval_required: approvalOffer(fresh, f.grantorName), instructions: `A new approval waits at ${approvalUrl(fresh.id)}; once approved, retry with "approval_id": "${fresh.id}".` } : {}),
        },
      });
    }
    case "approval_required":
      return new AppError("approval_required", `Approval ${f.approvalId} is still waiting for ${f.grantorName}.`, {
        details: { ...base, ...(a ? approvalOffer({ id: a.id, expiresAt: a.expiresAt, payloadDigest: a.payloadDigest }, f.grantorName) : {}) },
      });
  }
}
