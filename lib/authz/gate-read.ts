// The read that feeds gate one, in the call's own transaction, with no cache, in one statement. Grant rows are read FOR SHARE:
// a revoke (UPDATE) waits for in-flight calls that rely on the grant, and every call that starts after the
// revoke commits sees it. So no allow is ever recorded after a revoke has committed.
import { getTableColumns, sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { compiledVariants } from "@/db/compiled";
import { grants } from "@/db/schema";
import type { ApprovalStatus, OperationMode } from "@/db/schema";
import type { OperationKey, ParsedRef, Principal, Risk } from "@/lib/realms/contract";
import { laneColumn, laneCte, leaseLane } from "@/lib/audit/record";
import type { Limit } from "@/lib/limits/rate-limit";
import { actorOfToken, tokenColumns, tokenCtes, tokenValues, touchDue, type TokenValues } from "./actors";
import { sharedTurnSql } from "./grant-turns";
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

/** `touch`: a token's lookup carries the touch of its `last_used_at` (due once a minute: `touchDue`). */
type GateShape = { approval: boolean; destructive: boolean; describing: boolean; selected: boolean; grant: boolean; token: "none" | "plain" | "counted"; touch: boolean };
/** A GateShape as JSON: each shape compiled once. */
type GateShapeKey = string & { __gateShape: true };
type GateValues = "tenant" | "namespace" | "operation" | "grantor" | "actor" | "approval" | "grant" | "since" | keyof TokenValues;

/** The token's columns are named apart from the grant's (`g.*` has a tenant_id and an actor_id too). */
const TOKEN_PREFIX = "tok_";

const gateOneStatement = compiledVariants<GateShapeKey, GateValues, SwitchesRow>((key, p) => {
  const shape = JSON.parse(key) as GateShape;
  // Checked by token, the tenant, actor and grantor are the token's (`tok`, one row or none: then every read is empty).
  const byToken = shape.token !== "none";
  const counted = shape.token === "counted";
  // Checked by token, the main select left-joins `tok` once and reads its columns from there (one scan of the CTE,
  // not a subquery per use: each costs the executor a node to set up on every call); the CTEs read it by subquery.
  const tenantInCte = byToken ? sql`(select tok.tenant_id from tok)` : p.tenant;
  const tenant = byToken ? sql`tok.tenant_id` : p.tenant;
  const actor = byToken ? sql`tok.actor_id` : p.actor;
  const grantor = byToken ? sql`tok.grantor_id` : p.grantor;
  const ctes = [
    // Checked by token, the call also takes its tenant's audit lane here (lib/audit/record.ts): its record then
    // needs no statement of its own to lock one.
    ...(byToken ? [tokenCtes(p, counted, shape.touch), laneCte(tenantInCte)] : []),
    ...(shape.approval ? [sql`a as (select id, actor_id, tool, namespace, operation, ref, status, payload_digest, expires_at, note, result, void_reason from approvals where id = ${p.approval} and tenant_id = ${tenantInCte} for update)`] : []),
  ];
  return sql`
    ${ctes.length ? sql`with ${sql.join(ctes, sql`, `)} ` : sql``}select
      (select c.mode from ceiling_settings c where c.tenant_id = ${tenant} and c.namespace = ${p.namespace} and c.operation = ${p.operation}) as ceiling_mode,
      (select u.mode from user_choices u where u.tenant_id = ${tenant} and u.user_id = ${grantor} and u.namespace = ${p.namespace} and u.operation = ${p.operation}) as choice_mode,
      ${shape.destructive ? sql`(select t.destructive_default from tenants t where t.id = ${tenant})` : sql`null::text`} as destructive_default,
      ${shape.describing ? sql`(select s.open_description from realm_settings s where s.tenant_id = ${tenant} and s.namespace = ${p.namespace})` : sql`null::boolean`} as open_description,
      ${
        shape.selected
          ? sql`(coalesce((select s.selected_only from realm_settings s where s.tenant_id = ${tenant} and s.namespace = ${p.namespace}), false)
              and not (exists (select 1 from working_set_tools w where w.tenant_id = ${tenant} and w.actor_id = ${actor} and w.namespace = ${p.namespace} and w.operation = ${p.operation})
                and exists (select 1 from working_set_tools w where w.tenant_id = ${tenant} and w.actor_id = ${actor} and w.last_used_at > ${p.since}::timestamptz)))`
          : sql`null::boolean`
      } as not_selected,
      (select p.name from users p where p.id = ${grantor}) as grantor_name,
      ${shape.approval ? sql`(select to_jsonb(a) from a)` : sql`null::jsonb`} as approval,
      ${byToken ? sql`${tokenColumns(p, counted, TOKEN_PREFIX, true)}, ${laneColumn}, ` : sql``}g.*
    from (select 1) as one
    ${byToken ? sql`left join tok on true ` : sql``}left join lateral (
      select * from grants
      where grants.tenant_id = ${tenant} and grants.actor_id = ${actor} and grants.namespace = ${p.namespace}${shape.grant ? sql` and grants.id = ${p.grant}` : sql``}
        and ${sharedTurnSql(sql`grants.actor_id`)}
      for share
    ) g on true`;
});

/** What gate one's statement is asked, besides who asks: the operation, its risk and the optional reads. */
export type GateOneStatementInput = Pick<GateOneRead, "namespace" | "operation" | "risk" | "approval" | "grantId" | "checkSelected" | "workingSetSince">;

/** Gate one's statement's answer: the switches (the first row) and the actor's grants in the namespace. */
export type GateOneRows = { first: SwitchesRow; grants: GrantFacts[] };

const shapeOf = (input: GateOneStatementInput, token: GateShape["token"], touch = false): GateShapeKey =>
  JSON.stringify({
    approval: Boolean(input.approval),
    destructive: input.risk === "destructive",
    describing: DESCRIBING_OPERATIONS.has(input.operation),
    selected: Boolean(input.checkSelected && input.workingSetSince),
    grant: Boolean(input.grantId),
    token,
    touch,
  } satisfies GateShape) as GateShapeKey;

const valuesOf = (input: GateOneStatementInput) => ({
  namespace: input.namespace,
  operation: input.operation,
  approval: input.approval?.id ?? null,
  grant: input.grantId ?? null,
  since: input.workingSetSince?.toISOString() ?? null,
});

const NO_TOKEN = { hash: null, at: null, rl_window_start: null, rl_weight: null, rl_window_seconds: null };

const rowsOf = (rows: SwitchesRow[]): GateOneRows => ({
  first: rows[0]!,
  grants: rows.filter((r) => r.id !== null && r.id !== undefined).map((r) => grantFacts(grantRow(r))),
});

/** Gate one's read for an actor, in one statement (see `readAndDecideGateOne`). */
export async function readGateOne(tx: Executor, input: GateOneRead & { principal: Extract<Principal, { type: "actor" }> }): Promise<GateOneRows> {
  const rows = await gateOneStatement(shapeOf(input, "none"))(tx, {
    ...valuesOf(input),
    ...NO_TOKEN,
    tenant: input.tenantId,
    grantor: input.principal.grantorId,
    actor: input.principal.actorId,
  });
  return rowsOf(rows);
}

/**
 * Gate one's read for the actor an actor token acts as, with the token's lookup in the same statement (and with
 * `count`, the call counted against its rate limit): `actor` is null when the token is unknown, revoked or expired
 * (every read then comes back empty). The statement runs in the call's transaction, so its count and
 * `last_used_at` commit with the call: until then a concurrent call of the same actor does not see this one's
 * count (at most the actor's calls in flight at once get in over the limit).
 */
export async function readGateOneForToken(
  tx: Executor,
  input: GateOneStatementInput,
  token: string,
  now: Date,
  count?: { limit: Limit },
): Promise<{ actor: ReturnType<typeof actorOfToken>; rows: GateOneRows }> {
  const values = tokenValues(token, now, count);
  const rows = await gateOneStatement(shapeOf(input, count ? "counted" : "plain", touchDue(values.hash, now)))(tx, {
    ...valuesOf(input),
    ...values,
    tenant: null,
    grantor: null,
    actor: null,
  });
  const actor = actorOfToken(rows[0]!, now, count?.limit, TOKEN_PREFIX);
  if (actor) leaseLane(tx, actor.tenantId, rows[0]!.audit_lane);
  return { actor, rows: rowsOf(rows) };
}

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
  return decideGateOne(input, await readGateOne(tx, { ...input, principal }));
}

/** Gate one's decision from its statement's rows (a person's call never reads them: `readAndDecideGateOne`). */
export async function decideGateOne(input: GateOneRead, read: GateOneRows): Promise<GateOneReadDecision> {
  const { first, grants: facts } = read;
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
