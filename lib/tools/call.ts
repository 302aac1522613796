// One call's setup, for tool calls and for redeeming a signed file URL alike: the RealmContext and the
// DeliveryCaller, then gate one, read once in the call's transaction. Let in, the context carries the grant's
// scope, links are minted under the grant and operation, and refs an adapter reaches by name are narrowed to
// the grants that still cover everything the call named (ctx.gateRef).
import type { Tx } from "@/db/client";
import type { AuditPrincipal } from "@/lib/audit/record";
import { callerOperations } from "@/lib/authz/allowed";
import type { AuthContext } from "@/lib/authz/context";
import { coversRef } from "@/lib/authz/gate";
import { decideGateOne, readAndDecideGateOne, type GateOneReadDecision, type GateOneRows, type GateOneStatementInput } from "@/lib/authz/gate-read";
import { deliveryPort, type DeliveryCaller } from "@/lib/delivery/files";
import { env } from "@/lib/env";
import { riskOf, type OperationKey, type ParsedRef, type Principal, type Realm, type RealmContext } from "@/lib/realms/contract";
import { settledWrites, type SettledWrites } from "@/lib/realms/settled";
import { workingSetTtlMs } from "@/lib/working-set/store";
import { materialize } from "./working-set";
import type { RunCtx } from "./define";
import { parseOwnRef } from "./prepare";
import { reachOf } from "./reach";
import { toolContract } from "./schemas";

/** Who calls, and when. `checkOnly`: a read-only re-check (redemption) that neither signs nor audits links. */
export type CallParty = { tenantId: string; principal: Principal; requestId: string; now: Date; checkOnly?: boolean };

/** What gate one is asked. `grantId`: only this grant may let the call in (a signed URL's minting grant). */
export type GateAsk = {
  realm: Realm | null;
  namespace: string;
  operation: OperationKey;
  /** Every ref the call names, parsed by the realm: the target first. */
  refs: string[];
  parsed: Record<string, ParsedRef>;
  exactOnly?: boolean;
  grantId?: string;
  /** The approval the call names (`approval_id`), with the digest of its input. */
  approval?: { id: string; digest: string; tool: string; link?: true };
  /** An action called through object_action: the owner may require it to be in the actor's working set. */
  checkSelected?: boolean;
};

/** `accounts`: the connected accounts the call used (the audit record names them). */
export type OpenCall = { ctx: RealmContext; caller: DeliveryCaller; decision: GateOneReadDecision; settled: SettledWrites; accounts: Set<string> };

/** Thrown by ctx.gateRef when a ref reached by name is outside every grant still in the running. */
export class OutsideScope extends Error {
  constructor(
    readonly ref: string,
    readonly where: string,
  ) {
    super(`${ref} (${where}) is outside the grant's scope`);
  }
}

export const principalIdOf = (p: Principal) => (p.type === "user" ? p.userId : p.actorId);
export const auditPrincipalFor = (p: Principal): AuditPrincipal => (p.type === "user" ? p : { type: "actor", actorId: p.actorId, grantorId: p.grantorId });

/** What gate one's statement is asked for this call (`readGateOneForToken` asks it before the caller is known). */
export function gateStatementInputOf(now: Date, ask: GateAsk): GateOneStatementInput {
  return {
    namespace: ask.namespace,
    operation: ask.operation,
    risk: ask.realm ? riskOf(ask.realm.manifest, ask.operation) : "read",
    ...(ask.approval ? { approval: ask.approval } : {}),
    ...(ask.grantId ? { grantId: ask.grantId } : {}),
    ...(ask.checkSelected ? { checkSelected: true, workingSetSince: new Date(now.getTime() - workingSetTtlMs()) } : {}),
  };
}

/** Opens the call: its context, and gate one's decision (from `read` when gate one's statement already ran). */
export async function openCall(tx: Tx, party: CallParty, ask: GateAsk, read?: GateOneRows): Promise<OpenCall> {
  const { principal, now } = party;
  const caller: DeliveryCaller = {
    tenantId: party.tenantId,
    principalId: principalIdOf(principal),
    audit: auditPrincipalFor(principal),
    requestId: party.requestId,
    appUrl: env().appUrl,
    now,
    grantId: null,
    operation: null,
    ...(party.checkOnly ? { checkOnly: true } : {}),
  };
  // Writes the effect must leave whatever its outcome: run on the call's transaction after the effect's
  // savepoint, before the audit record (settled.run).
  const settled = settledWrites();
  const accounts = new Set<string>();
  const ctx: RealmContext = {
    tx,
    tenantId: party.tenantId,
    principal,
    requestId: party.requestId,
    now,
    appUrl: env().appUrl,
    grantScope: null,
    delivery: deliveryPort(tx, caller),
    gateRef: async () => {},
    settled: settled.add,
    usedAccount: (id) => void accounts.add(id),
  };
  const realm = ask.realm;
  const lineage = realm?.adapter.lineage ? (rs: string[]) => realm.adapter.lineage!(ctx, { refs: rs }) : undefined;
  const input = { ...gateStatementInputOf(now, ask), tenantId: party.tenantId, principal, refs: [...new Set(ask.refs)], parsed: ask.parsed, now, exactOnly: ask.exactOnly, lineage };
  const decision = read ? await decideGateOne(input, read) : await readAndDecideGateOne(tx, input);
  if (!decision.allow) return { ctx, caller, decision, settled, accounts };

  ctx.grantScope = decision.scope ?? null;
  ctx.operation = ask.operation;
  // Links minted by an approved call carry its approval: they stay good while it is the approval that ran.
  caller.grantId = decision.grantId ?? decision.approvalId ?? null;
  caller.operation = ask.operation;
  // Refs an adapter reaches by name (a title turned into a ref) must be covered by the same grant as everything
  // else the call named: of the grants that cover the call, only those covering this ref stay in the running.
  let candidates = decision.candidates;
  if (principal.type === "actor" && realm) {
    ctx.gateRef = async (ref, where) => {
      const parsed = parseOwnRef(realm, ref, where ?? "a field");
      let contained: string[] | null = null;
      const still: typeof candidates = [];
      for (const c of candidates) {
        if (!c.scope || coversRef(c.scope, ref, [], parsed)) still.push(c);
        else {
          contained ??= (await lineage?.([ref]))?.[ref] ?? [];
          if (coversRef(c.scope, ref, contained, parsed)) still.push(c);
        }
      }
      if (still.length === 0) throw new OutsideScope(ref, where ?? "a field");
      candidates = still;
      caller.grantId = still[0]!.grantId;
    };
  }
  return { ctx, caller, decision, settled, accounts };
}

const DEFAULT_PAGE = 20;

/** What a tool's run gets: the context of the let-in call, the reach of its grant, what its prepare returned. */
export function runContext(realm: Realm, ctx: RealmContext, auth: AuthContext, operation: OperationKey, prepared: unknown, notes: Record<string, unknown> = {}): RunCtx<unknown> {
  const m = realm.manifest;
  // Read once per call, whichever of the two the tool asks for (object_schema asks for both).
  let sets: ReturnType<typeof callerOperations> | undefined;
  const operations = () => (sets ??= callerOperations(ctx.tx, auth, [realm], ctx.now));
  return {
    realm,
    manifest: m,
    ctx,
    auth,
    operation,
    prepared,
    principalId: auth.kind === "user" ? auth.userId : auth.actorId,
    ...reachOf(realm, ctx, ctx.grantScope ?? null),
    pageSize: (limit) => Math.min(limit ?? DEFAULT_PAGE, m.delivery.max_page_size),
    allowedHere: async () => (await operations()).allowed.get(m.namespace) ?? new Set<OperationKey>(),
    grantableHere: async () => (await operations()).grantable.get(m.namespace) ?? (new Set<OperationKey>() as ReadonlySet<OperationKey>),
    askingHere: async () => (await operations()).asking.get(m.namespace) ?? (new Set<OperationKey>() as ReadonlySet<OperationKey>),
    note: (details) => void Object.assign(notes, details),
    materialize: (op, on) => materialize(ctx.tx, auth, realm, op, on, ctx.now, (d) => void Object.assign(notes, d)),
    toolOf: toolContract,
  };
}
