// A gate-one refusal as an answer: for an actor (unless the wall is the ceiling, a choice or a revoke), the
// consent request for this very ask, naming every item the call names; then its audit record and the denial.
// In a connected realm the denial also lists the connected-account walls ahead of the call (gate two read
// with the grantor's authority, from their stored accounts), so the one consent visit opens them all.
import { eq } from "drizzle-orm";
import type { Tx } from "@/db/client";
import { users } from "@/db/schema";
import { recordAudit as writeAudit, type AuditInput } from "@/lib/audit/record";
import type { AuthContext } from "@/lib/authz/context";
import { recordConsentRequest } from "@/lib/authz/consent";
import { gateOneError } from "@/lib/authz/denials";
import { approvalRefusal, approvalRequiredError, expireApproval, requestApproval } from "@/lib/approvals/record";
import type { ApprovalDenial, GrantDenial } from "@/lib/authz/gate";
import { accountSelectorOf, wallAhead, wallPhrase, wallsAhead, type WallView } from "@/lib/connections/walls";
import { env } from "@/lib/env";
import { AppError, isAppError } from "@/lib/errors";
import type { OperationKey, ParsedRef, Realm } from "@/lib/realms/contract";
import type { NamedRef } from "./prepare";

export type Denied = GrantDenial;
export type ToolAudit = AuditInput & { clientRequestId?: string; exactTool?: string };

/**
 * Tool-call audit records also keep the caller's own X-Request-Id, when it sent one, and, for a call of an exact
 * tool, `path: "exact_tool"` and its name. A tool call's record is always its transaction's last statement (on
 * every path: an allow, a denial, a failure), so COMMIT goes with it (db/pipeline.ts); nothing may follow it.
 */
export const recordAudit = (tx: Tx, { clientRequestId, exactTool, ...input }: ToolAudit) =>
  writeAudit(
    tx,
    clientRequestId || exactTool
      ? { ...input, details: { ...input.details, ...(clientRequestId ? { client_request_id: clientRequestId } : {}), ...(exactTool ? { path: "exact_tool", exact_tool: exactTool } : {}) } }
      : input,
    { last: true },
  );

export type Refusal = {
  auth: AuthContext;
  tool: string;
  target: { namespace: string; ref: string | null };
  operation: OperationKey;
  /** The call's audit record, less its outcome. */
  audit: Omit<ToolAudit, "outcome">;
  now: Date;
  /** The realm, the call's parsed refs and its input: what the walls ahead in a connected realm are read from. */
  realm?: Realm;
  parsed?: Record<string, ParsedRef>;
  input?: Record<string, unknown>;
  /** A call naming its object by a selector: which object that is now (an approval is asked for that one). */
  resolveTarget?: () => Promise<string>;
};

export async function refuse(tx: Tx, r: Refusal, d: Denied & { grantorName?: string }, named: NamedRef[], subjectId: string | null): Promise<{ error: AppError }> {
  const { auth, target, operation } = r;
  let consentRequestId: string | undefined;
  if (auth.kind === "actor" && d.code !== "operation_disabled" && d.code !== "operation_not_selected" && d.code !== "grant_revoked") {
    consentRequestId = (
      await recordConsentRequest(tx, {
        tenantId: auth.tenantId,
        actorId: auth.actorId,
        grantorId: auth.grantorId,
        namespace: target.namespace,
        operations: [operation],
        ref: target.ref,
        namedRefs: named.map((n) => n.ref).filter((x) => x !== target.ref),
        callInput: r.input,
        requestId: auth.requestId,
        now: r.now,
      })
    ).id;
  }
  // The walls of gate two ahead of this call, with the grantor's authority; before the audit record (below).
  let walls: WallView[] = [];
  let consentPath: string | null = null;
  if (consentRequestId && auth.kind === "actor" && r.realm?.manifest.connection) {
    const selector = accountSelectorOf(r.input);
    // The account the call named travels with the consent link, so its page reads the same walls.
    consentPath = `/consent/${consentRequestId}${selector ? `?${new URLSearchParams({ account: selector }).toString()}` : ""}`;
    walls = await wallsFor(tx, r, auth, r.realm, consentPath);
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
  const error = gateOneError(d, { ...facts, consentRequestId, namedRefs: named });
  return { error: walls.length && consentPath ? withWalls(error, walls, `${facts.appUrl}${consentPath}`, facts) : error };
}

/**
 * An approval refusal as an answer. An operation in ask mode with no approval named: the pending approval of this
 * exact call (a new one, or the one already waiting). A named approval that lapsed: marked expired, with a fresh
 * offer. Then the call's audit record and the denial; nothing ran.
 */
export async function refuseApproval(tx: Tx, r: Refusal, d: ApprovalDenial & { grantorName?: string }): Promise<{ error: AppError }> {
  const { auth, target, operation } = r;
  if (auth.kind !== "actor") throw new Error("approvals are asked of actors only");
  const grantorName = d.grantorName ?? (await userName(tx, auth.grantorId));
  const named = typeof r.input?.approval_id === "string" ? r.input.approval_id : null;
  // A selector is resolved first: the person approves the call for one object, by its name, never for "whatever
  // the title names when it runs". Nothing matching, or several, is answered as the call would be.
  let ref = target.ref;
  if (!ref && r.resolveTarget && (!named || d.code === "approval_expired")) {
    try {
      ref = await r.resolveTarget();
    } catch (err) {
      if (!isAppError(err)) throw err;
      await recordAudit(tx, { ...r.audit, outcome: "error", gate: null, reason: err.code, details: { tool: r.tool } });
      return { error: err };
    }
  }
  const ask = { auth, tool: r.tool, namespace: target.namespace, operation, ref, input: r.input ?? {}, now: r.now };
  const facts = { namespace: target.namespace, operation, ref, grantorName, actorName: auth.actorName };
  let error: AppError;
  let approvalId: string | null = named;
  // An approval that cannot be asked for (too large to read, too many waiting) is the answer itself, audited.
  const asking = async () => {
    try {
      return await requestApproval(tx, ask);
    } catch (err) {
      if (!isAppError(err)) throw err;
      return err;
    }
  };
  if (!named) {
    const a = await asking();
    if (isAppError(a)) {
      await recordAudit(tx, { ...r.audit, ref: ref ?? null, outcome: "deny", gate: "one", reason: a.code, details: { tool: r.tool, wall: "approval" } });
      return { error: a };
    }
    approvalId = a.id;
    error = approvalRequiredError(a, facts);
  } else if (d.code === "approval_expired") {
    if (d.approval) await expireApproval(tx, d.approval, auth, r.now);
    const fresh = await asking();
    error = approvalRefusal(d, { ...facts, approvalId: named }, isAppError(fresh) ? undefined : fresh);
  } else {
    error = approvalRefusal(d, { ...facts, approvalId: named });
  }
  // In a connected realm, the account walls the call will meet once approved, so the person opens them together.
  if (approvalId && !named && r.realm?.manifest.connection) {
    const walls = await wallsFor(tx, r, auth, r.realm, `/approvals/${approvalId}`);
    if (walls.length) {
      const also = walls.map((w) => wallPhrase(w)).join(", and ");
      error = new AppError(error.code, error.message, {
        status: error.status,
        details: {
          ...error.details,
          also_needed: walls.map(wallAhead),
          instructions: `${String(error.details.instructions)} Before it can run, ${grantorName} also needs to ${also} (details.also_needed links there).`,
        },
      });
    }
  }
  await recordAudit(tx, {
    ...r.audit,
    ref: ref ?? r.audit.ref ?? null,
    outcome: "deny",
    gate: "one",
    reason: d.code === "approval_unknown" ? "not_found" : d.code,
    subjectId: approvalId,
    details: { tool: r.tool, wall: "approval", ...(approvalId ? { approval_id: approvalId } : {}) },
  });
  return { error };
}

/** The connected-account walls ahead of this call, read with the grantor's authority; fixing them returns to `returnTo`. */
function wallsFor(tx: Tx, r: Refusal, auth: Extract<AuthContext, { kind: "actor" }>, realm: Realm, returnTo: string): Promise<WallView[]> {
  return wallsAhead(tx, {
    tenantId: auth.tenantId,
    userId: auth.grantorId,
    manifest: realm.manifest,
    operations: [r.operation],
    parsed: Object.values(r.parsed ?? {}),
    selector: accountSelectorOf(r.input),
    actor: { id: auth.actorId, name: auth.actorName },
    appUrl: env().appUrl,
    returnTo,
  });
}

/** The denial, listing the walls ahead (`also_needed`) and saying that the one visit opens them all. */
function withWalls(e: AppError, walls: WallView[], url: string, f: { operation: string; namespace: string; actorName: string; grantorName: string }): AppError {
  const also = walls.map((w) => wallPhrase(w)).join(", and ");
  return new AppError(e.code, e.message, {
    status: e.status,
    headers: e.headers,
    details: {
      ...e.details,
      also_needed: walls.map(wallAhead),
      connection_hub_url: url,
      instructions: `Ask ${f.grantorName} to approve "${f.operation}" on ${f.namespace} for ${f.actorName} at ${url}; the same visit also lets them ${also}, so that one visit fixes everything this call needs. Then retry the same call.`,
    },
  });
}

async function userName(tx: Tx, userId: string): Promise<string> {
  const [u] = await tx.select({ name: users.name }).from(users).where(eq(users.id, userId));
  return u?.name ?? "your user";
}
