// The read that feeds gate one, in the call's own transaction, with no cache, in one statement. Grant rows are read FOR SHARE:
// a revoke (UPDATE) waits for in-flight calls that rely on the grant, and every call that starts after the
// revoke commits sees it. So no allow is ever recorded after a revoke has committed.
import { getTableColumns, sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { compiledVariants } from "@/db/compiled";
import { grants } from "@/db/schema";
import type { ApprovalStatus, OperationMode } from "@/db/schema";
import type { OperationKey, ParsedRef, Principal, Risk } from "@/lib/realms/contract";
import { DESCRIBING_OPERATIONS, gateOne, type ApprovalFacts, type GateOneDecision, type GrantFacts } from "./gate";

export type GateOneRead = {
  tenantId: string;
  principal: Principal;
  namespace: string;
  operation: OperationKey;
  /** Every ref the call names, already parsed by the realm: the target first. */
  refs: string[];
  parsed?: Record<string, ParsedRef>;
  now: Date;
  exactOnly?: boolean;
  /** The operation's risk (a destructive one without a ceiling row takes the tenant's default mode). */
  risk?: Risk;
  /** The approval the call names, with its tool and the digest of its input: read and locked FOR UPDATE here. */
  approval?: { id: string; digest: string; tool: string; link?: true };
  /** What contains the given refs (asked only when a ref-scoped grant does not name a ref itself). */
  lineage?: (refs: string[]) => Promise<Record<string, string[]>>;
  /** Only this grant may let the call in (redeeming a link minted under it). */
  grantId?: string;
  /** Check the owner's "agents act only on operations they selected" (an action called through object_action). */
  checkSelected?: boolean;
  /** Since when a working set counts as live (now less REALMGATE_WORKING_SET_TTL); with checkSelected. */
  workingSetSince?: Date;
};

export const grantFacts = (g: typeof grants.$inferSelect): GrantFacts => ({
  id: g.id,
  actorId: g.actorId,
  operations: g.operations,
  allActions: g.allActions,
  resourceScope: g.resourceScope ?? null,
  suspensions: g.suspensions ?? {},
  expiresAt: g.expiresAt,
  revokedAt: g.revokedAt,
  createdAt: g.createdAt,
});

/** A decision as read: on a denial, also the grantor's name (the refusal names them), read in the same statement. */
export type GateOneReadDecision = GateOneDecision & { grantorName?: string };

type SwitchesRow = {
  ceiling_mode: OperationMode | null;
  choice_mode: OperationMode | null;
  destructive_default: "ask" | "on" | null;
  open_description: boolean | null;
  not_selected: boolean | null;
  grantor_name: string | null;
  approval: ApprovalJson | null;
} & Record<string, unknown>;

type ApprovalJson = {
  id: string;
  actor_id: string;
  tool: string;
  namespace: string;
  operation: string;
  ref: string | null;
  status: ApprovalStatus;
  payload_digest: string;
  expires_at: string;
  note: string | null;
  result: unknown;
  void_reason: string | null;
};

const approvalFacts = (a: ApprovalJson): ApprovalFacts => ({
  id: a.id,
  actorId: a.actor_id,
  tool: a.tool,
  namespace: a.namespace,
  operation: a.operation,
  ref: a.ref,
  status: a.status,
  payloadDigest: a.payload_digest,
  expiresAt: new Date(a.expires_at),
  note: a.note,
  result: a.result,
  voidReason: a.void_reason,
});

type GateShape = { approval: boolean; destructive: boolean; describing: boolean; selected: boolean; grant: boolean };
/** A GateShape as JSON: at most 32 shapes, each compiled once. */
type GateShapeKey = string & { __gateShape: true };

const gateOneStatement = compiledVariants<GateShapeKey, "tenant" | "namespace" | "operation" | "grantor" | "actor" | "approval" | "grant" | "since", SwitchesRow>((key, p) => {
  const shape = JSON.parse(key) as GateShape;
  return sql`
    ${shape.approval ? sql`with a as (select id, actor_id, tool, namespace, operation, ref, status, payload_digest, expires_at, note, result, void_reason from approvals where id = ${p.approval} and tenant_id = ${p.tenant} for update) ` : sql``}select
      (select c.mode from ceiling_settings c where c.tenant_id = ${p.tenant} and c.namespace = ${p.namespace} and c.operation = ${p.operation}) as ceiling_mode,
      (select u.mode from user_choices u where u.tenant_id = ${p.tenant} and u.user_id = ${p.grantor} and u.namespace = ${p.namespace} and u.operation = ${p.operation}) as choice_mode,
      ${shape.destructive ? sql`(select t.destructive_default from tenants t where t.id = ${p.tenant})` : sql`null::text`} as destructive_default,
      ${shape.describing ? sql`(select s.open_description from realm_settings s where s.tenant_id = ${p.tenant} and s.namespace = ${p.namespace})` : sql`null::boolean`} as open_description,
      ${
        shape.selected
          ? sql`(coalesce((select s.selected_only from realm_settings s where s.tenant_id = ${p.tenant} and s.namespace = ${p.namespace}), false)
              and not (exists (select 1 from working_set_tools w where w.tenant_id = ${p.tenant} and w.actor_id = ${p.actor} and w.namespace = ${p.namespace} and w.operation = ${p.operation})
                and exists (select 1 from working_set_tools w where w.tenant_id = ${p.tenant} and w.actor_id = ${p.actor} and w.last_used_at > ${p.since}::timestamptz)))`
          : sql`null::boolean`
      } as not_selected,
      (select p.name from users p where p.id = ${p.grantor}) as grantor_name,
      ${shape.approval ? sql`(select to_jsonb(a) from a)` : sql`null::jsonb`} as approval,
      g.*
    from (select 1) as one
    left join lateral (
      select * from grants
      where grants.tenant_id = ${p.tenant} and grants.actor_id = ${p.actor} and grants.namespace = ${p.namespace}${shape.grant ? sql` and grants.id = ${p.grant}` : sql``}
      for share
    ) g on true`;
});

/**
 * Gate one's read, in one statement: the owner's ceiling mode and the grantor's choice mode for this operation
 * (null: never set), the tenant's default for destructive operations, for a describing operation the realm's
 * open-description setting, the grantor's name, the approval the call names (locked FOR UPDATE: concurrent
 * retries of one approval wait for the first to consume it, then replay), and the actor's grants in the
 * namespace, locked FOR SHARE (a lateral subquery, so the switches come back even when the actor holds no grant).
 */
export async function readAndDecideGateOne(tx: Executor, input: GateOneRead): Promise<GateOneReadDecision> {
  const { principal } = input;
  if (principal.type === "user") return gateOne({ ...input, approval: undefined, lineage: {}, ceilingMode: null, choiceMode: null, grants: [] });
  const { tenantId, namespace, operation } = input;
  const shape = {
    approval: Boolean(input.approval),
    destructive: input.risk === "destructive",
    describing: DESCRIBING_OPERATIONS.has(operation),
    selected: Boolean(input.checkSelected && input.workingSetSince),
    grant: Boolean(input.grantId),
  };
  const rows = await gateOneStatement(JSON.stringify(shape) as GateShapeKey)(tx, {
    tenant: tenantId,
    namespace,
    operation,
    grantor: principal.grantorId,
    actor: principal.actorId,
    approval: input.approval?.id ?? null,
    grant: input.grantId ?? null,
    since: input.workingSetSince?.toISOString() ?? null,
  });
  const first = rows[0]!;
  const facts = rows.filter((r) => r.id !== null && r.id !== undefined).map((r) => grantFacts(grantRow(r)));
  const decision = gateOne({
    ...input,
    lineage: await lineageNeeded(facts, input.refs, input.lineage),
    ceilingMode: first.ceiling_mode ?? null,
    choiceMode: first.choice_mode ?? null,
    destructiveDefault: first.destructive_default ?? "on",
    approval: input.approval ? { ...input.approval, row: first.approval ? approvalFacts(first.approval) : null } : undefined,
    openDescription: first.open_description ?? null,
    notSelected: first.not_selected === true,
    grants: facts,
  });
  return decision.allow ? decision : { ...decision, grantorName: first.grantor_name ?? "your user" };
}

const grantColumns = Object.entries(getTableColumns(grants));

/** A grants row of a raw statement, as drizzle's select would map it. */
function grantRow(r: Record<string, unknown>): typeof grants.$inferSelect {
  const out: Record<string, unknown> = {};
  for (const [key, col] of grantColumns) {
    const v = r[col.name];
    out[key] = v === null || v === undefined ? null : col.mapFromDriverValue(v);
  }
  return out as typeof grants.$inferSelect;
}

/** What contains a ref matters only to a ref-scoped grant that does not name the ref itself: ask the realm then, once. */
export async function lineageNeeded(
  facts: Pick<GrantFacts, "resourceScope">[],
  refs: string[],
  lineage?: (refs: string[]) => Promise<Record<string, string[]>>,
): Promise<Record<string, string[]>> {
  const scopes = facts.map((g) => g.resourceScope?.refs).filter((r): r is string[] => Array.isArray(r));
  const outside = refs.filter((ref) => scopes.some((s) => !s.includes(ref)));
  return outside.length && lineage ? lineage(outside) : {};
}
