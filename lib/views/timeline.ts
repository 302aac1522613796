// One grant's life as the support console shows it: a timeline (requested → approved → created → used → denied →
// revoked), read from the audit trail and the grant itself; and one single-call approval's (requested → approved
// or denied → ran, expired or voided). The names behind the ids and the chain check are in lib/audit/directory.ts.
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { Db, Executor } from "@/db/client";
import { actors, auditEvents, grants, users, type Role } from "@/db/schema";
import { approvalForReview, type ApprovalView } from "@/lib/approvals/decide";
import { grantView, type GrantView } from "@/lib/authz/grants";
import { AppError } from "@/lib/errors";
import { auditView, type AuditEventView } from "@/lib/audit/query";
import { recordSupportView } from "@/lib/audit/views";

type Viewer = { tenantId: string; userId: string; role: Role; requestId: string };

export type TimelineStage = "requested" | "approved" | "refused" | "created" | "used" | "denied" | "failed" | "revoked" | "expired" | "ran" | "voided" | "other";

export type TimelineEntry = {
  stage: TimelineStage;
  at: string;
  /** Null for entries derived from the grant itself (expiry), which no audit event records. */
  event: AuditEventView | null;
  who: { type: string; user: string | null; actor: string | null };
};

export type GrantTimeline = {
  grant: GrantView & { actor: { id: string; name: string; kind: string }; grantor: { id: string; name: string; email: string }; revoked_by_name: string | null };
  summary: { uses: number; denials: number; errors: number; first_used_at: string | null; last_used_at: string | null };
  entries: TimelineEntry[];
  /** True when only the newest `limit` events are listed (the summary still counts all of them). */
  truncated: boolean;
};

export function stageOf(e: Pick<AuditEventView, "event" | "outcome">): TimelineStage {
  switch (e.event) {
    case "consent.requested":
    case "approval.requested":
      return "requested";
    case "consent.approved":
    case "approval.approved":
      return "approved";
    case "consent.denied":
    case "approval.denied":
      return "refused";
    case "approval.consumed":
      return "ran";
    case "approval.expired":
      return "expired";
    case "approval.voided":
      return "voided";
    case "grant.created":
      return "created";
    case "grant.revoked":
      return "revoked";
    case "tool.call":
      return e.outcome === "allow" ? "used" : e.outcome === "deny" ? "denied" : "failed";
    default:
      return "other";
  }
}

/**
 * One grant's timeline, oldest first: the consent request that led to it, its creation, every call decided
 * under it (the dispatcher records the grant id as the subject of allow and deny decisions), its revocation,
 * and its expiry. The grant's grantor, tenant owners and support staff may read it; anyone else gets not_found.
 */
export async function grantTimeline(db: Db, who: Viewer, grantId: string, opts: { limit?: number; now?: Date } = {}): Promise<GrantTimeline> {
  const limit = opts.limit ?? 300;
  const now = opts.now ?? new Date();
  return db.transaction(async (tx) => {
    const [g] = await tx.select().from(grants).where(and(eq(grants.id, grantId), eq(grants.tenantId, who.tenantId)));
    const mayRead = g && (g.grantorId === who.userId || who.role === "owner" || who.role === "support");
    if (!g || !mayRead) throw new AppError("not_found", "No such grant.", { details: { grant_id: grantId } });

    const subjects = g.consentRequestId ? [g.id, g.consentRequestId] : [g.id];
    const where = and(eq(auditEvents.tenantId, who.tenantId), inArray(auditEvents.subjectId, subjects));
    const rows = await tx.select().from(auditEvents).where(where).orderBy(desc(auditEvents.pos)).limit(limit + 1);
    const [stats] = await tx
      .select({
        uses: sql<number>`count(*) filter (where ${auditEvents.outcome} = 'allow')::int`,
        denials: sql<number>`count(*) filter (where ${auditEvents.outcome} = 'deny')::int`,
        errors: sql<number>`count(*) filter (where ${auditEvents.outcome} = 'error')::int`,
        first: sql<Date | null>`min(${auditEvents.at}) filter (where ${auditEvents.outcome} = 'allow')`,
        last: sql<Date | null>`max(${auditEvents.at}) filter (where ${auditEvents.outcome} = 'allow')`,
      })
      .from(auditEvents)
      .where(and(where, eq(auditEvents.event, "tool.call")));

    const events = rows.slice(0, limit).reverse().map(auditView);
    const userIds = new Set<string>([g.grantorId, ...(g.revokedBy ? [g.revokedBy] : [])]);
    const actorIds = new Set<string>([g.actorId]);
    for (const e of events) {
      if (e.user_id) userIds.add(e.user_id);
      if (e.actor_id) actorIds.add(e.actor_id);
    }
    const [people, agents] = await Promise.all([
      tx.select({ id: users.id, name: users.name, email: users.email }).from(users).where(inArray(users.id, [...userIds])),
      tx.select({ id: actors.id, name: actors.name, kind: actors.kind }).from(actors).where(and(eq(actors.tenantId, who.tenantId), inArray(actors.id, [...actorIds]))),
    ]);
    const userName = new Map(people.map((u) => [u.id, u.name]));
    const actorName = new Map(agents.map((a) => [a.id, a.name]));

    const entries: TimelineEntry[] = events.map((e) => ({
      stage: stageOf(e),
      at: e.at,
      event: e,
      who: {
        type: e.principal_type,
        user: e.user_id ? (userName.get(e.user_id) ?? e.user_id) : null,
        actor: e.actor_id ? (actorName.get(e.actor_id) ?? e.actor_id) : null,
      },
    }));
    // Expiry is a moment, not an event: shown where it falls, unless the grant was revoked before it.
    if (g.expiresAt && g.expiresAt <= now && (!g.revokedAt || g.revokedAt > g.expiresAt)) {
      const at = g.expiresAt.toISOString();
      const i = entries.findIndex((x) => x.at > at);
      entries.splice(i === -1 ? entries.length : i, 0, { stage: "expired", at, event: null, who: { type: "system", user: null, actor: null } });
    }

    if (who.role === "support") {
      await recordSupportView(tx, who, { view: "grant.timeline", grant_id: g.id }, { namespace: g.namespace, subjectId: g.id });
    }

    const grantor = people.find((u) => u.id === g.grantorId);
    const actor = agents.find((a) => a.id === g.actorId);
    return {
      grant: {
        ...grantView(g, now),
        actor: { id: g.actorId, name: actor?.name ?? g.actorId, kind: actor?.kind ?? "unknown" },
        grantor: { id: g.grantorId, name: grantor?.name ?? g.grantorId, email: grantor?.email ?? "" },
        revoked_by_name: g.revokedBy ? (userName.get(g.revokedBy) ?? g.revokedBy) : null,
      },
      summary: {
        uses: stats?.uses ?? 0,
        denials: stats?.denials ?? 0,
        errors: stats?.errors ?? 0,
        first_used_at: stats?.first ? new Date(stats.first).toISOString() : null,
        last_used_at: stats?.last ? new Date(stats.last).toISOString() : null,
      },
      entries,
      truncated: rows.length > limit,
    };
  });
}

export type ApprovalTimeline = { approval: ApprovalView; entries: TimelineEntry[] };

/** The names behind the user and actor ids of some events, in one read each. */
async function whoOf(tx: Executor, tenantId: string, events: AuditEventView[]): Promise<(e: AuditEventView) => TimelineEntry["who"]> {
  const userIds = [...new Set(events.flatMap((e) => (e.user_id ? [e.user_id] : [])))];
  const actorIds = [...new Set(events.flatMap((e) => (e.actor_id ? [e.actor_id] : [])))];
  const [people, agents] = await Promise.all([
    userIds.length ? tx.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, userIds)) : [],
    actorIds.length ? tx.select({ id: actors.id, name: actors.name }).from(actors).where(and(eq(actors.tenantId, tenantId), inArray(actors.id, actorIds))) : [],
  ]);
  const userName = new Map(people.map((u) => [u.id, u.name]));
  const actorName = new Map(agents.map((a) => [a.id, a.name]));
  return (e) => ({
    type: e.principal_type,
    user: e.user_id ? (userName.get(e.user_id) ?? e.user_id) : null,
    actor: e.actor_id ? (actorName.get(e.actor_id) ?? e.actor_id) : null,
  });
}

/**
 * One single-call approval's timeline, oldest first, from its own audit records: asked, approved or denied (who,
 * with their note), ran, expired or voided. The approval's grantor, tenant owners and support staff may read it;
 * anyone else gets not_found. A support person's reading is itself recorded.
 */
export async function approvalTimeline(db: Db, who: Viewer, approvalId: string): Promise<ApprovalTimeline> {
  return db.transaction(async (tx) => {
    const approval = await approvalForReview(tx, who.tenantId, approvalId);
    const mayRead = approval && (approval.grantor.id === who.userId || who.role === "owner" || who.role === "support");
    if (!approval || !mayRead) throw new AppError("not_found", "No such approval.", { details: { approval_id: approvalId } });
    const rows = await tx
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, who.tenantId), eq(auditEvents.subjectId, approval.id), sql`${auditEvents.event} like 'approval.%'`))
      .orderBy(auditEvents.pos)
      .limit(50);
    const events = rows.map(auditView);
    const named = await whoOf(tx, who.tenantId, events);
    const entries: TimelineEntry[] = events.map((e) => ({ stage: stageOf(e), at: e.at, event: e, who: named(e) }));
    // Lapsing is a moment, not always an event: an approval nobody touched again after its time shows it where it falls.
    if (approval.status === "expired" && !entries.some((e) => e.stage === "expired")) {
      entries.push({ stage: "expired", at: approval.expires_at, event: null, who: { type: "system", user: null, actor: null } });
    }
    if (who.role === "support") {
      await recordSupportView(tx, who, { view: "approval.timeline", approval_id: approval.id }, { namespace: approval.namespace, subjectId: approval.id });
    }
    return { approval, entries };
  });
}
