// The one dispatcher behind REST, MCP and the UI: parse → operation key → gate one → the tool's run (gate two
// inside the realm) → delivery shaping → audit. Gate one is read in the same transaction as the effect; exactly
// one audit record is written per decision, in that transaction, whatever the outcome. What each tool does is
// in ./defs; the call's setup and gate one in ./call.ts; refusals in ./refuse.ts.
import { sql } from "drizzle-orm";
import { getDb, savepointAfterNext, type Db, type Tx } from "@/db/client";
import { payloadDigest } from "@/lib/approvals/record";
import { callerOperations } from "@/lib/authz/allowed";
import { countPendingAgain, pendingAnswer, verifyPending, type PendingActor } from "@/lib/authz/authenticate";
import { auditPrincipalOf, principalOf, type AuthContext } from "@/lib/authz/context";
import { readGateOneForToken, type GateOneRows } from "@/lib/authz/gate-read";
import { consumeApproval } from "@/lib/approvals/record";
import { isApprovalDenial } from "@/lib/authz/gate";
import { AppError, isAppError, parseWith } from "@/lib/errors";
import { assertCleanText } from "@/lib/input/text";
import { nativeCallSlots } from "@/lib/limits/call-slots";
import { actionOperationKey, riskOf, type OperationKey, type Realm, type Risk } from "@/lib/realms/contract";
import { builtInRealms, listRealms } from "@/lib/realms/registry";
import { gateStatementInputOf, openCall, OutsideScope, principalIdOf, runContext, type GateAsk } from "./call";
import type { RunCtx, ToolDef } from "./define";
import { idempotencyOf, idempotentReplay, storeIdempotent } from "./idempotency";
import { APPROVAL_ID } from "./inputs";
import { resolveOperation } from "./operation";
import type { ResolvedOperation, UnresolvedOperation } from "./define";
import { prepareCall, prepareCallIn, withheldUnlessDescribed, type PreparedCall } from "./prepare";
import { recordAudit, refuse, refuseApproval } from "./refuse";
import { isToolName, toolDef, toolNames, type ToolName } from "./schemas";
import { shapeResult } from "./shape";
import { exactToolCall } from "./working-set";

export type DispatchOptions = {
  now?: () => Date;
  /** Called as this exact tool (the working set's): audited with path "exact_tool". */
  exactTool?: string;
  /** The realm and action the exact tool stands for: the call runs exactly that operation, whatever its input says. */
  exactOperation?: { namespace: string; operation: string };
  /** A transport's own wall for an exact tool, asked with the risk of the action it stands for when it runs (MCP's OAuth scope). */
  exactToolCheck?: (risk: Risk) => Promise<void>;
};

type Outcome = { result: unknown } | { error: unknown };

/** Thrown out of a call's transaction to roll it back; `finish` then runs in a fresh one. */
class RolledBack extends Error {
  constructor(
    readonly reason: unknown,
    readonly finish: (fresh: Tx) => Promise<Outcome>,
  ) {
    super("the call's effect failed; its transaction was rolled back");
  }
}

/** The savepoint a read's effect rolls back to when it fails. */
const EFFECT_SAVEPOINT = "rg_effect";

/** Errors that are a realm's own refusal (gate two): audited as a deny of gate two. */
const GATE_TWO_CODES = new Set(["realm_denied", "needs_connected_account_consent"]);

/** A call's input, parsed and resolved to its operation: nothing read yet. */
type ParsedCall = { tool: string; def: ToolDef; input: Record<string, unknown>; resolved: ResolvedOperation | UnresolvedOperation; now: Date };

/**
 * Run one tool for `who`: a known caller, or an actor token not looked up yet (`PendingActor`, the REST route's),
 * which a call on a built-in realm looks up in its own transaction, in gate one's statement. Everything else
 * about a pending token — an unknown tool, an exact tool, a realm of the tenant's own, input that fails before
 * gate one — is looked up on its own first, so its 401 or 429 comes first and the call then runs as any other.
 */
export async function dispatch(who: AuthContext | PendingActor, tool: string, rawInput: unknown, opts: DispatchOptions = {}): Promise<unknown> {
  if (who.kind === "pending_actor") {
    const db = await getDb();
    const early = opts.exactTool || opts.exactOperation ? null : preparedEarly(tool, rawInput, opts);
    if (!early) return dispatch(await verifyPending(db, who), tool, rawInput, opts);
    return runCall(db, who, early.parsed, opts, early.call);
  }
  const auth = who;
  if (!isToolName(tool)) {
    // An exact tool of the calling agent's working set: exactly object_action with its operation.
    if (auth.kind === "actor" && typeof tool === "string" && !opts.exactTool) {
      const exact = await exactToolCall(await getDb(), auth, tool, rawInput, opts.now?.() ?? new Date());
      await opts.exactToolCheck?.(exact.tool.action.risk);
      return dispatch(auth, "object_action", exact.input, { ...opts, exactTool: tool, exactOperation: { namespace: exact.tool.namespace, operation: exact.tool.operation } });
    }
    throw new AppError("not_found", `No tool "${String(tool).slice(0, 60)}".`, { details: { known_tools: toolNames, unknown_tool: true } });
  }
  const parsed = parseCall(tool, rawInput, opts);
  // Calls without a namespace (the realm list, cross-realm capability search) are decided per realm.
  if (!("error" in parsed.resolved) && parsed.resolved.namespace === null) return allRealms(auth, parsed.def, parsed.resolved.operation, parsed.input, parsed.now);
  return runCall(await getDb(), auth, parsed, opts);
}

/** The input checked against the tool's schema, and the operation it names (`invalid_input` when it names none). */
function parseCall(tool: ToolName, rawInput: unknown, opts: DispatchOptions): ParsedCall {
  const def = toolDef(tool);
  // NUL and lone surrogates never reach a query: MCP and the UI call here without the REST body reader.
  assertCleanText(rawInput, `${tool} input`);
  const input = parseWith(def.input, rawInput, `${tool} input`) as Record<string, unknown>;
  if (input.approval_id !== undefined && !APPROVAL_ID.test(String(input.approval_id))) {
    throw new AppError("invalid_input", `${tool} input: approval_id is the id an approval_required answer gave (apr_…).`, { details: { field: "approval_id" } });
  }
  const now = opts.now?.() ?? new Date();
  const resolved = resolveOperation(tool, input);
  // An exact tool runs its own action in its own realm, never one its arguments name.
  const x = opts.exactOperation;
  if (x && ("error" in resolved || resolved.namespace !== x.namespace || resolved.operation !== x.operation)) {
    throw new AppError("invalid_input", `${opts.exactTool} runs ${x.operation} in ${x.namespace}; its input names another operation or realm.`, {
      details: { tool: opts.exactTool, namespace: x.namespace, operation: x.operation },
    });
  }
  return { tool, def, input, resolved, now };
}

/** A call on a built-in realm, parsed and prepared without a statement; null for anything else, or anything that fails. */
function preparedEarly(tool: string, rawInput: unknown, opts: DispatchOptions): { parsed: ParsedCall; call: PreparedCall } | null {
  if (!isToolName(tool)) return null;
  try {
    const parsed = parseCall(tool, rawInput, opts);
    const realm = builtInRealmOf(parsed.resolved);
    if (!realm || "error" in parsed.resolved) return null;
    return { parsed, call: prepareCallIn(realm, parsed.def, parsed.input, parsed.resolved) };
  } catch {
    return null; // answered by the ordinary path, after the token's own answer
  }
}

/** What gate one is asked for a prepared call. */
function askOf(call: PreparedCall, input: Record<string, unknown>, tool: string, byActor: boolean, opts: DispatchOptions): GateAsk {
  const { realm, operation, target, namedRefs } = call;
  return {
    realm,
    namespace: target.namespace,
    operation,
    refs: [...(target.ref ? [target.ref] : []), ...namedRefs.map((n) => n.ref).filter((r) => r !== target.ref)],
    parsed: call.parsed,
    exactOnly: realm.manifest.actions.find((a) => actionOperationKey(a.name) === operation)?.exact_grant_only === true,
    // A call naming an approval (an actor's retry after approval_required) is decided by it: this exact input, once.
    approval: byActor && typeof input.approval_id === "string" ? { id: input.approval_id, digest: payloadDigest(input), tool } : undefined,
    // Through object_action an action may have to be in the agent's working set (the owner's per-realm rule).
    checkSelected: byActor && !opts.exactTool && operation.startsWith("object.action."),
  };
}

/**
 * The call's transaction. For a pending actor token (`early` given), its first statement is the token's lookup, its
 * rate-limit count and gate one's read in one: an unknown token is 401 and nothing else is read; over the limit is
 * 429, its count committed.
 */
async function runCall(db: Db, who: AuthContext | PendingActor, parsed: ParsedCall, opts: DispatchOptions, early?: PreparedCall): Promise<unknown> {
  // A call on a native realm is database work only: it waits for one of the node's slots for such calls first
  // (lib/limits/call-slots.ts). Any other call may wait on the network inside its transaction and takes none.
  if (onNativeRealm(parsed)) return nativeCallSlots().run(() => runCallNow(db, who, parsed, opts, early));
  return runCallNow(db, who, parsed, opts, early);
}

/** The built-in realm the call names (found without a statement), or null. */
function builtInRealmOf(r: ParsedCall["resolved"]): Realm | null {
  if ("error" in r || r.namespace === null || !Object.hasOwn(builtInRealms, r.namespace)) return null;
  return builtInRealms[r.namespace]!;
}

/** Whether the call's realm is a built-in one whose data is Realmgate's own database (memory, docs, board). */
const onNativeRealm = (parsed: ParsedCall): boolean => builtInRealmOf(parsed.resolved)?.manifest.realm_type === "native";

async function runCallNow(db: Db, who: AuthContext | PendingActor, parsed: ParsedCall, opts: DispatchOptions, early?: PreparedCall): Promise<unknown> {
  const { tool, def, input, resolved, now } = parsed;
  const outcome: Outcome = await db.transaction(async (tx): Promise<Outcome> => {
    let auth: AuthContext;
    let gateRows: GateOneRows | undefined;
    let earlyAsk: GateAsk | undefined;
    // A read's effect may roll back to this savepoint, taken right behind gate one's statement (in its exchange on
    // PostgreSQL): what came before it — the call's count, gate one's locks — stays.
    let effectSavepoint: { placed(): Promise<void> } | null = null;
    if (who.kind === "pending_actor") {
      earlyAsk = askOf(early!, input, tool, true, opts);
      if (riskOf(early!.realm.manifest, early!.operation) === "read") effectSavepoint = savepointAfterNext(tx, EFFECT_SAVEPOINT);
      const r = await readGateOneForToken(tx, gateStatementInputOf(now, earlyAsk), who.token, now, who.countCalls ? { limit: who.countCalls } : undefined);
      const answer = pendingAnswer(who, r.actor);
      if (answer instanceof AppError) return { error: answer };
      auth = answer;
      gateRows = r.rows;
    } else auth = who;
    const baseAudit = {
      tenantId: auth.tenantId,
      event: "tool.call" as const,
      principal: auditPrincipalOf(auth),
      requestId: auth.requestId,
      clientRequestId: auth.clientRequestId,
      ...(opts.exactTool ? { exactTool: opts.exactTool } : {}),
    };

    // Before gate one: every ref the call names is parsed, and the call's shape checked for its operation. A
    // malformed ref is audited and answered `invalid_ref`; no consent request is ever made from it.
    let call: PreparedCall;
    try {
      call = early ?? (await prepareCall(tx, auth, def, input, resolved));
    } catch (err) {
      if (isAppError(err) && err.code === "invalid_ref") {
        const bad = typeof err.details.ref === "string" ? err.details.ref : null;
        await recordAudit(tx, { ...baseAudit, namespace: namespaceGuess(input), ref: bad ? truncateRef(bad) : null, outcome: "error", reason: "invalid_ref", details: { tool, why: err.message.slice(0, 200) } });
        return { error: err };
      }
      if (isAppError(err) && !("error" in resolved) && resolved.namespace) throw await withheldUnlessDescribed(tx, auth, resolved.namespace, err, now);
      throw err;
    }
    const { realm, operation, target, namedRefs } = call;
    const audit = { ...baseAudit, namespace: target.namespace, operation, ref: target.ref };

    // Support staff read everything and change nothing, whatever the tool.
    if (auth.kind === "user" && auth.role === "support" && riskOf(realm.manifest, operation) !== "read") {
      await recordAudit(tx, { ...audit, outcome: "deny", gate: "one", reason: "forbidden", details: { tool, wall: "role" } });
      return {
        error: new AppError("forbidden", `Support staff review and do not change data: ${operation} on ${target.namespace} changes it.`, {
          details: { namespace: target.namespace, operation, wall: "role", who_can_open: "nobody: the support role is read-only", retry_hint: "do_not_retry" },
        }),
      };
    }

    const party = { tenantId: auth.tenantId, principal: principalOf(auth), requestId: auth.requestId, now };
    const read = riskOf(realm.manifest, operation) === "read";
    if (read && !effectSavepoint) effectSavepoint = savepointAfterNext(tx, EFFECT_SAVEPOINT);
    const { ctx, caller, decision, settled, accounts } = await openCall(tx, party, earlyAsk ?? askOf(call, input, tool, auth.kind === "actor", opts), gateRows);
    // A call naming its object by a selector is approved for the object the selector names when it asks (the kind
    // given, or the one an action runs on).
    const selectorKind = typeof input.kind === "string" ? input.kind : operation.startsWith("object.action.") ? realm.manifest.actions.find((a) => actionOperationKey(a.name) === operation)?.target_kind : undefined;
    const bySelector = !target.ref && input.selector !== undefined && typeof selectorKind === "string";
    const resolveTarget = bySelector ? () => runContext(realm, ctx, auth, operation, call.prepared).resolveTarget({ ...input, kind: selectorKind }) : undefined;
    const refusal = { auth, tool, target, operation, audit, now, realm, parsed: call.parsed, input, resolveTarget };
    if (!decision.allow) return isApprovalDenial(decision) ? refuseApproval(tx, refusal, decision) : refuse(tx, refusal, decision, namedRefs, decision.grantId);
    // The approved call already ran: its result, and nothing runs again.
    if (decision.replay) {
      await recordAudit(tx, { ...audit, outcome: "allow", gate: null, subjectId: decision.replay.approvalId, details: { tool, replayed: true, approval_id: decision.replay.approvalId } });
      return { result: decision.replay.result };
    }

    // Let in: the read's savepoint exists from here (PGlite, or a person's call, which reads no gate-one statement:
    // sent now).
    await effectSavepoint?.placed();
    const idem = def.idempotent ? idempotencyOf(input) : null;
    const keyed = { tenantId: auth.tenantId, principalId: caller.principalId, tool };
    // What a failed effect is answered with, and audited as, on the transaction given.
    const failed = async (on: Tx, err: unknown): Promise<Outcome> => {
      if (err instanceof OutsideScope && auth.kind === "actor") {
        // A name the adapter resolved led outside the grant (the effect was rolled back): the same answer as a ref
        // named outright — a consent request for this call with every item it touches.
        const outside = { allow: false as const, code: "consent_required" as const, wall: "grant" as const, grantId: null, outsideScope: [err.ref] };
        return refuse(on, refusal, outside, [...namedRefs, { ref: err.ref, where: err.where }], decision.grantId);
      }
      const code = isAppError(err) ? err.code : "internal_error";
      const gateTwo = GATE_TWO_CODES.has(code);
      await recordAudit(on, { ...audit, outcome: gateTwo ? "deny" : "error", gate: gateTwo ? "two" : null, reason: code, subjectId: decision.grantId, details: { tool } });
      return { error: err };
    };
    const notes: Record<string, unknown> = {};
    const effect = async (on: Tx) => {
      const onCtx = { ...ctx, tx: on };
      const rc = runContext(realm, onCtx, auth, operation, call.prepared, notes);
      const r = await def.run(decision.approvalId ? boundToApproved(rc, decision.approvalId, decision.approvalRef ?? null, bySelector) : rc, input);
      const shaped = await shapeResult(r, onCtx, target.namespace);
      if (idem) await storeIdempotent(on, keyed, idem, shaped);
      return shaped;
    };
    // A read's effect runs after the savepoint taken behind gate one's statement; any other effect in a savepoint of
    // its own (drizzle's nested transaction). Either way a failed effect leaves nothing half-written while its audit
    // record commits with the rest of the call.
    try {
      const replay = idem ? await idempotentReplay(tx, keyed, idem) : undefined;
      if (replay !== undefined) {
        await recordAudit(tx, { ...audit, outcome: "allow", gate: null, subjectId: decision.grantId, details: { tool, replayed: true } });
        return { result: replay };
      }
      let result: unknown;
      if (read) {
        result = await effect(tx);
        await settled.run(tx);
      } else {
        result = await tx.transaction(effect).finally(() => settled.run(tx));
      }
      // Let in by an approval: used up with the effect, in this transaction, its result kept for replays.
      if (decision.approvalId && auth.kind === "actor") await consumeApproval(tx, decision.approvalId, result, auth, { namespace: target.namespace, operation, ref: target.ref }, now);
      // The audit append comes last: the tenant's chain head is locked from here to COMMIT, which goes with it.
      // Let in without a grant (a realm's open description, a person's approval): the record says so.
      const via = decision.open ? { via: "open_description" } : decision.approvalId ? { via: "approval", approval_id: decision.approvalId } : {};
      // The connected account the call used, so the Connection Hub can say which agents use which account.
      const used = accounts.size ? { account_ids: [...accounts].sort() } : {};
      await recordAudit(tx, { ...audit, outcome: "allow", gate: null, subjectId: caller.grantId ?? decision.grantId ?? decision.approvalId ?? null, details: { tool, ...via, ...used, ...notes } });
      return { result };
    } catch (err) {
      if (read) {
        const undone = await tx.execute(sql.raw(`rollback to savepoint ${EFFECT_SAVEPOINT}`)).then(
          () => true,
          () => false,
        );
        if (undone) {
          await settled.run(tx);
          return failed(tx, err);
        }
        // The transaction cannot go on (its connection is gone): rolled back whole, its audit record in a fresh one.
        throw new RolledBack(err, async (fresh) => {
          // Counted by gate one's statement, the call's count went with the rollback: counted again here.
          if (who.kind === "pending_actor") await countPendingAgain(fresh, who, principalIdOf(party.principal), now);
          await settled.run(fresh);
          return failed(fresh, err);
        });
      }
      return failed(tx, err);
    }
  }).catch(async (err: unknown) => {
    if (!(err instanceof RolledBack)) throw err;
    // The read's transaction was rolled back: its settled writes and its one audit record, in a transaction of their own.
    return db.transaction((fresh) => err.finish(fresh));
  });
  if ("error" in outcome) throw outcome.error;
  return outcome.result;
}

/**
 * Let in by an approval, a selector must name the very object the person approved (it may name another one by
 * now: that one was deleted and another has the same title). Otherwise the effect stops before it acts.
 */
function boundToApproved<P>(rc: RunCtx<P>, approvalId: string, approved: string | null, bySelector: boolean): RunCtx<P> {
  return {
    ...rc,
    resolveTarget: async (input) => {
      const ref = await rc.resolveTarget(input);
      // Named by its ref, the object is in the digest; named by a selector, it must be the one approved (an
      // approval asked by selector always names one: nothing matching was never offered for approval).
      if (input.ref || (!bySelector && approved === null) || ref === approved) return ref;
      throw new AppError("approval_mismatch", `Approval ${approvalId} was given for another object than the one this selector names now; ask again.`, {
        details: { approval_id: approvalId, approved_ref: approved, ref, retry_hint: "do_not_retry", instructions: "Send the call again without approval_id to ask for an approval of the object it names now." },
      });
    },
  };
}

const truncateRef = (ref: string) => (ref.length > 80 ? `${ref.slice(0, 79)}…` : ref);

function namespaceGuess(input: Record<string, unknown>): string | null {
  if (typeof input.namespace === "string") return input.namespace.slice(0, 64);
  const m = typeof input.ref === "string" ? /^([a-z][a-z0-9_]{1,30}):/.exec(input.ref) : null;
  return m ? m[1]! : null;
}

/**
 * The realm list and cross-realm capability search: every realm the caller could be granted, described where it
 * may read the description, marked needs_grant where not. One audit record, naming the realms described.
 */
async function allRealms(auth: AuthContext, def: ToolDef, op: OperationKey, input: Record<string, unknown>, now: Date) {
  const db = await getDb();
  return db.transaction(async (tx: Tx) => {
    const realms = await listRealms(tx, auth.tenantId);
    const { allowed, grantable, asking } = await callerOperations(tx, auth, realms, now);
    const result = await def.runAll!({ tx, auth, realms, allowed, grantable, asking }, input);
    await recordAudit(tx, {
      tenantId: auth.tenantId,
      event: "tool.call",
      principal: auditPrincipalOf(auth),
      requestId: auth.requestId,
      clientRequestId: auth.clientRequestId,
      operation: op,
      outcome: "allow",
      details: { tool: def.name, realms: [...allowed].filter(([, ops]) => ops.has(op)).map(([ns]) => ns) },
    });
    return result;
  });
}
