// Single-call approvals, the person's side: the grantor lists the approvals their agents asked for, reads one as
// its realm presents it (who asks, the action in words, the object by its name, what the call carries), and
// approves or denies it. Approving lets exactly that call run once (./record.ts consumes it with the effect);
// nothing else. Only the grantor sees or decides an approval: anyone else is told there is none.
import { and, asc, desc, eq, gt, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db, Executor } from "@/db/client";
import { actors, approvals, auditEvents, users, type Approval } from "@/db/schema";
import { recordChange } from "@/lib/audit/record";
import type { NamedRef } from "@/lib/authz/consent";
import { namedRefsOf } from "@/lib/authz/consent";
import type { UserContext } from "@/lib/authz/context";
import { approvalLive } from "@/lib/authz/gate";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import type { Realm } from "@/lib/realms/contract";
import { presentCallAs } from "@/lib/realms/present-call";
import { MAX_LINES, nameLine, UNSEEN, type PresentedLine, type PresentedRequest } from "@/lib/realms/presenters";
import { findRealm } from "@/lib/realms/registry";
import { approvalUrl, expireApproval } from "./record";

type Who = Pick<UserContext, "tenantId" | "userId" | "role" | "requestId">;
type Reader = Pick<UserContext, "tenantId" | "userId"> & { requestId?: string };

/** An approval as its grantor reads it. `expired`: pending or approved in the database, but past its time. */
export type ApprovalView = {
  id: string;
  status: "pending" | "approved" | "denied" | "expired" | "consumed" | "void";
  namespace: string;
  /** The realm's title, or its namespace once the realm is gone. */
  realm_title: string;
  tool: string;
  operation: string;
  /** The operation in words (the realm's service card label). */
  operation_label: string;
  risk: "read" | "write" | "destructive" | null;
  ref: string | null;
  payload_digest: string;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  decided_by: { id: string; name: string } | null;
  note: string | null;
  consumed_at: string | null;
  void_reason: string | null;
  actor: { id: string; name: string; kind: string; revoked: boolean };
  grantor: { id: string; name: string; email: string };
  url: string;
};

/** The call the approval is for, as the person reads it (or a note that its input was too large to keep). */
export type ApprovalCall = ({ kind: "presented" } & PresentedRequest) | { kind: "too_large"; bytes: number };

/** One approval with what its page shows: the target by its name, and the exact call through the realm's presenter. */
export type ApprovalDetail = ApprovalView & {
  target: NamedRef | null;
  call: ApprovalCall | null;
  /** The whole input exactly as it will run, pretty-printed: a summary may shorten long text, this never does. */
  full_call: string | null;
  /** Null when the person can approve it; otherwise why only denying is offered. */
  cannot_approve: string | null;
};

/**
 * Why a person cannot approve a call: they could not read all of it (its input was not kept whole), or the
 * object it acts on is one they cannot see (their own authority would refuse it anyway).
 */
function cannotApprove(a: Approval, target: NamedRef | null): string | null {
  if (!a.input || !("value" in a.input)) return "The whole call was not kept, so it cannot be read in full: it can only be denied.";
  if (target && !target.visible) return "The call acts on something you cannot see: it can only be denied.";
  return null;
}

const statusOf = (a: Approval, now: Date): ApprovalView["status"] =>
  (a.status === "pending" || a.status === "approved") && !approvalLive(a, now) ? "expired" : a.status;

async function views(db: Executor, tenantId: string, rows: Approval[], now = new Date()): Promise<ApprovalView[]> {
  if (rows.length === 0) return [];
  const userIds = [...new Set(rows.flatMap((r) => [r.grantorId, ...(r.decidedBy ? [r.decidedBy] : [])]))];
  const [actorRows, userRows] = await Promise.all([
    db.select().from(actors).where(and(eq(actors.tenantId, tenantId), inArray(actors.id, [...new Set(rows.map((r) => r.actorId))]))),
    db.select({ id: users.id, name: users.name, email: users.email }).from(users).where(inArray(users.id, userIds)),
  ]);
  const realms = new Map<string, Realm | null>();
  for (const ns of new Set(rows.map((r) => r.namespace))) realms.set(ns, await findRealm(db, tenantId, ns));
  return rows.map((r) => {
    const a = actorRows.find((x) => x.id === r.actorId);
    const u = userRows.find((x) => x.id === r.grantorId);
    const by = r.decidedBy ? userRows.find((x) => x.id === r.decidedBy) : null;
    const realm = realms.get(r.namespace) ?? null;
    return {
      id: r.id,
      status: statusOf(r, now),
      namespace: r.namespace,
      realm_title: realm?.manifest.service_card.title ?? r.namespace,
      tool: r.tool,
      operation: r.operation,
      operation_label: realm?.manifest.service_card.operation_labels[r.operation] ?? r.operation,
      risk: realm ? riskOf(realm, r.operation) : null,
      ref: r.ref,
      payload_digest: r.payloadDigest,
      created_at: r.createdAt.toISOString(),
      expires_at: r.expiresAt.toISOString(),
      decided_at: r.decidedAt?.toISOString() ?? null,
      decided_by: r.decidedBy ? { id: r.decidedBy, name: by?.name ?? r.decidedBy } : null,
      note: r.note,
      consumed_at: r.consumedAt?.toISOString() ?? null,
      void_reason: r.voidReason,
      actor: { id: r.actorId, name: a?.name ?? r.actorId, kind: a?.kind ?? "unknown", revoked: a ? a.revokedAt !== null : true },
      grantor: { id: r.grantorId, name: u?.name ?? r.grantorId, email: u?.email ?? "" },
      url: approvalUrl(r.id),
    };
  });
}

/** The operation's risk as the realm declares it (base operations have fixed ones). */
function riskOf(realm: Realm, operation: string): ApprovalView["risk"] {
  if (operation === "object.delete") return "destructive";
  if (operation === "object.upsert" || operation === "file.host") return "write";
  if (operation.startsWith("object.action.")) {
    const name = operation.slice("object.action.".length);
    return realm.manifest.actions.find((a) => a.name === name)?.risk ?? null;
  }
  return "read";
}

/**
 * One approval's view by id in the tenant, whoever may read it: no check of who asks (the support console's
 * timeline checks grantor, owner or support itself); null when there is none.
 */
export async function approvalForReview(db: Executor, tenantId: string, id: string): Promise<ApprovalView | null> {
  const [row] = await db.select().from(approvals).where(and(eq(approvals.id, id), eq(approvals.tenantId, tenantId)));
  return row ? ((await views(db, tenantId, [row]))[0] ?? null) : null;
}

export const listApprovalsQuery = z.strictObject({ status: z.enum(["pending", "all"]).default("pending") });

/**
 * The grantor's own approvals: those still waiting first (the soonest to lapse on top), then the rest, newest
 * first. `pending`: only those still waiting and not past their time.
 */
export async function listApprovals(db: Executor, who: Reader, q: z.infer<typeof listApprovalsQuery>, now = new Date()): Promise<ApprovalView[]> {
  const mine = and(eq(approvals.tenantId, who.tenantId), eq(approvals.grantorId, who.userId));
  const waiting = and(eq(approvals.status, "pending"), gt(approvals.expiresAt, now));
  const rows =
    q.status === "pending"
      ? await db.select().from(approvals).where(and(mine, waiting)).orderBy(asc(approvals.expiresAt)).limit(200)
      : await db
          .select()
          .from(approvals)
          .where(mine)
          .orderBy(sql`case when ${approvals.status} = 'pending' and ${approvals.expiresAt} > ${now} then 0 else 1 end`, sql`case when ${approvals.status} = 'pending' and ${approvals.expiresAt} > ${now} then ${approvals.expiresAt} end asc`, desc(approvals.createdAt))
          .limit(200);
  return views(db, who.tenantId, rows, now);
}

/** Approvals with their targets by the names the grantor reads them by (one describeRefs per realm): the home list. */
export async function withTargets(db: Executor, who: Reader, list: ApprovalView[]): Promise<(ApprovalView & { target: NamedRef | null })[]> {
  const byNamespace = new Map<string, string[]>();
  for (const a of list) if (a.ref) byNamespace.set(a.namespace, [...(byNamespace.get(a.namespace) ?? []), a.ref]);
  const named = new Map<string, NamedRef>();
  for (const [namespace, refs] of byNamespace) {
    for (const n of await namedRefsOf(db, who, { namespace, ref: null, named_refs: [...new Set(refs)] })) named.set(`${namespace} ${n.ref}`, n);
  }
  return list.map((a) => ({ ...a, target: a.ref ? (named.get(`${a.namespace} ${a.ref}`) ?? null) : null }));
}

const notFound = (id: string) => new AppError("not_found", "No such approval.", { details: { approval_id: id } });

async function mineOrNotFound(db: Executor, who: Reader, id: string, lock = false): Promise<Approval> {
  const q = db
    .select()
    .from(approvals)
    .where(and(eq(approvals.id, id), eq(approvals.tenantId, who.tenantId), eq(approvals.grantorId, who.userId)));
  const [row] = lock ? await q.for("update") : await q;
  if (!row) throw notFound(id);
  return row;
}

/** The approval's target as the grantor reads it (their own authority); null when the call names none. */
async function targetOf(db: Executor, who: Reader, a: Pick<Approval, "namespace" | "ref">): Promise<NamedRef | null> {
  if (!a.ref) return null;
  return (await namedRefsOf(db, who, { namespace: a.namespace, ref: a.ref, named_refs: [] }))[0] ?? null;
}

/** Other refs of this realm the call carries in its fields or payload (a document a comment goes on), to name them too. */
function refsIn(realm: Realm, input: Record<string, unknown>): string[] {
  const out = new Set<string>();
  const take = (v: unknown) => {
    if (typeof v !== "string" || !v.startsWith(`${realm.manifest.namespace}:`)) return;
    try {
      realm.adapter.parseRef(v);
      out.add(v);
    } catch {
      // Not a ref this realm reads: shown as the text it is.
    }
  };
  for (const part of [input.fields, input.payload]) {
    if (typeof part !== "object" || part === null || Array.isArray(part)) continue;
    for (const v of Object.values(part)) (Array.isArray(v) ? v : [v]).forEach(take);
  }
  return [...out].slice(0, MAX_LINES);
}

/**
 * The exact call, as the person reads it: what a delete destroys (the object's name and summary), else the
 * realm's presenter (recipients and body for mail, before → after for a patch), else the generic lines.
 */
async function presentApproval(db: Executor, who: Reader, a: Approval, target: NamedRef | null, realm: Realm | null): Promise<ApprovalCall | null> {
  const label = realm?.manifest.service_card.operation_labels[a.operation] ?? a.operation;
  if (a.operation === "object.delete") {
    const what = target ? (target.visible ? nameLine({ label: target.label ?? target.ref, summary: target.summary ?? undefined }, UNSEEN) : UNSEEN) : "(no object named)";
    const lines: PresentedLine[] = [{ label: "Destroys", value: what }];
    return { kind: "presented", title: label, lines };
  }
  const kept = a.input;
  if (!kept) return null;
  if ("too_large" in kept) return { kind: "too_large", bytes: kept.bytes };
  const others = realm ? refsIn(realm, kept.value).filter((r) => r !== a.ref) : [];
  const described = others.length ? await namedRefsOf(db, who, { namespace: a.namespace, ref: null, named_refs: others }) : [];
  // Items by the names the grantor reads them by; one they cannot see is said to be so, never shown as a bare ref.
  const names = Object.fromEntries([...(target ? [target] : []), ...described].map((i) => [i.ref, i.visible && i.label ? i.label : UNSEEN]));
  const shown = await presentCallAs(db, { ...who, appUrl: env().appUrl }, { realm, operation: a.operation, ref: a.ref, input: kept.value, names });
  return { kind: "presented", ...shown };
}

/**
 * The target by the name the person read when they decided (kept with the decision's audit record): what a
 * delete destroyed can no longer be described, but the page still says what it was.
 */
async function seenWhenDecided(db: Executor, who: Reader, a: Approval): Promise<NamedRef | null> {
  if (!a.ref || !a.decidedAt) return null;
  const [decided] = await db
    .select({ details: auditEvents.details })
    .from(auditEvents)
    .where(and(eq(auditEvents.tenantId, who.tenantId), eq(auditEvents.subjectId, a.id), inArray(auditEvents.event, ["approval.approved", "approval.denied"])))
    .limit(1);
  const items = Array.isArray(decided?.details.items) ? (decided.details.items as { ref?: unknown; label?: unknown; visible?: unknown }[]) : [];
  const item = items.find((i) => i.ref === a.ref && i.visible === true && typeof i.label === "string");
  return item ? { ref: a.ref, label: item.label as string, summary: null, kind: null, visible: true } : null;
}

/** One approval with what its page shows, for its grantor only (anyone else: not_found). */
export async function getApproval(db: Executor, who: Reader, id: string): Promise<ApprovalDetail> {
  const row = await mineOrNotFound(db, who, id);
  const [view] = await views(db, who.tenantId, [row]);
  const realm = await findRealm(db, who.tenantId, row.namespace);
  const now = await targetOf(db, who, row);
  const target = now && !now.visible ? ((await seenWhenDecided(db, who, row)) ?? now) : now;
  const full = row.input && "value" in row.input ? JSON.stringify(row.input.value, null, 2) : null;
  return { ...view!, target, call: await presentApproval(db, who, row, target, realm), full_call: full, cannot_approve: cannotApprove(row, now) };
}

export const decideApprovalBody = z.strictObject({
  decision: z.enum(["approve", "deny"]),
  /** Why, in the person's words: kept with the decision; a denial's note is what the agent is told. */
  note: z.string().trim().max(500, "A note is at most 500 characters.").optional(),
});

/** The first decision, as a second one is told it (who decided, and when). */
function firstDecision(a: Approval, byName: string | null) {
  const decision = a.status === "denied" ? "denied" : "approved";
  return { status: a.status, decision, decided_at: a.decidedAt?.toISOString() ?? null, decided_by: byName, ...(a.consumedAt ? { consumed_at: a.consumedAt.toISOString() } : {}) };
}

/**
 * Approve or deny one approval, in one transaction with its audit record: only its grantor (anyone else in the
 * tenant, or in another one, is told there is none), never support staff. A second decision is a conflict that
 * names the first; one past its time is marked expired (that is kept) and refused.
 */
export async function decideApproval(db: Db, who: Who, id: string, body: z.infer<typeof decideApprovalBody>): Promise<ApprovalView> {
  if (who.role === "support") throw new AppError("forbidden", "Support staff cannot approve or deny an agent's calls.");
  // Trimmed here too: a caller in lib/ need not have parsed the body.
  const note = body.note?.trim() || null;
  const outcome = await db.transaction(async (tx) => {
    const row = await mineOrNotFound(tx, who, id, true);
    const now = new Date();
    if (row.status === "pending" && !approvalLive(row, now)) {
      // Its time ran out before anyone decided: mark it (kept, so the agent's retry reads the same), then refuse.
      await expireApproval(tx, row, who, now);
      return { kind: "expired" as const, row };
    }
    if (row.status === "expired") return { kind: "expired" as const, row };
    if (row.status === "void") {
      throw new AppError("conflict", `This approval stopped counting${row.voidReason ? ` (${row.voidReason})` : ""}; it can no longer be decided.`, {
        details: { approval_id: row.id, status: "void", void_reason: row.voidReason },
      });
    }
    if (row.status !== "pending") {
      const [by] = row.decidedBy ? await tx.select({ name: users.name }).from(users).where(eq(users.id, row.decidedBy)) : [];
      const first = firstDecision(row, by?.name ?? null);
      throw new AppError("conflict", `This approval was already ${first.decision}${first.decided_by ? ` by ${first.decided_by}` : ""}.`, { details: { approval_id: row.id, ...first } });
    }
    const status = body.decision === "approve" ? "approved" : "denied";
    // What the person saw, kept with the decision: the item's name as they read it (support reads it later
    // without reading the object again; an item the person could not see is kept as not visible).
    const target = await targetOf(tx, who, row);
    const why = status === "approved" ? cannotApprove(row, target) : null;
    if (why) throw new AppError("conflict", why, { details: { approval_id: row.id, status: row.status, retry_hint: "do_not_retry" } });
    await tx.update(approvals).set({ status, decidedAt: now, decidedBy: who.userId, note }).where(eq(approvals.id, row.id));
    await recordChange(tx, who, status === "approved" ? "approval.approved" : "approval.denied", {
      namespace: row.namespace,
      operation: row.operation,
      ref: row.ref,
      subjectId: row.id,
      details: {
        approval_id: row.id,
        actor_id: row.actorId,
        tool: row.tool,
        payload_digest: row.payloadDigest,
        note,
        ...(target ? { items: [{ ref: target.ref, label: target.visible ? (target.label ?? null) : null, visible: target.visible }] } : {}),
      },
    });
    const [updated] = await tx.select().from(approvals).where(eq(approvals.id, row.id));
    return { kind: "decided" as const, view: (await views(tx, who.tenantId, [updated!], now))[0]! };
  });
  if (outcome.kind === "expired") {
    const a = outcome.row;
    throw new AppError("conflict", a.decidedAt ? "This approval was decided, then lapsed before the agent used it. If the agent still needs it, its next attempt asks again." : "This approval expired before it was decided. If the agent still needs it, its next attempt asks again.", {
      details: { approval_id: a.id, status: "expired", expired_at: a.expiresAt.toISOString() },
    });
  }
  return outcome.view;
}
