// The one dispatcher behind REST, MCP and the UI: parse → operation key → gate one → realm adapter (gate two
// inside) → delivery shaping → audit. Gate one is read in the same transaction as the effect; exactly one
// audit record is written per decision, in that transaction, whatever the outcome.
import { createHash } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { getDb, type Tx } from "@/db/client";
import { users } from "@/db/schema";
import { canonicalJson } from "@/lib/audit/canonical";
import { recordAudit } from "@/lib/audit/record";
import { allowedOperations, grantableOperations } from "@/lib/authz/allowed";
import { recordConsentRequest } from "@/lib/authz/consent";
import { auditPrincipalOf, principalOf, type AuthContext } from "@/lib/authz/context";
import { gateOneError } from "@/lib/authz/denials";
import { coversResource } from "@/lib/authz/gate";
import { readAndDecideGateOne } from "@/lib/authz/gate-read";
import { decodeCursor, encodeCursor } from "@/lib/delivery/cursors";
import { deliveryPort, MAX_FILE_BYTES } from "@/lib/delivery/files";
import { env } from "@/lib/env";
import { AppError, isAppError, parseWith } from "@/lib/errors";
import { actionNameSchema, actionOperationKey, operationKeysOf, type OperationKey, type Realm, type RealmContext } from "@/lib/realms/contract";
import { namespaceOfRef } from "@/lib/realms/refs";
import { listRealms, requireRealm } from "@/lib/realms/registry";
import { aboutRealm, aboutRoot, schemaKind, schemaNode, schemaOperation, schemaQuery, schemaRoot } from "./describe";
import { validatePayload } from "./payload";
import { toolInputSchemas, toolNames, toolOperation, type ToolInput, type ToolName } from "./schemas";

/** Results larger than this are delivered as a file URL, never inline. */
export const MAX_INLINE_RESULT_BYTES = 256 * 1024;
const DEFAULT_PAGE = 20;

export type DispatchOptions = { now?: () => Date };

/** Errors that are a realm's own refusal (gate two): audited as a deny of gate two. */
const GATE_TWO_CODES = new Set(["realm_denied", "needs_connected_account_consent"]);

export function isToolName(name: string): name is ToolName {
  return (toolNames as string[]).includes(name);
}

export async function dispatch(auth: AuthContext, tool: string, rawInput: unknown, opts: DispatchOptions = {}): Promise<unknown> {
  if (!isToolName(tool)) {
    throw new AppError("not_found", `No tool "${String(tool).slice(0, 60)}".`, { details: { known_tools: toolNames } });
  }
  const input = parseWith(toolInputSchemas[tool], rawInput, `${tool} input`);
  const now = opts.now?.() ?? new Date();
  const db = await getDb();

  // Calls without a namespace (the realm list, cross-realm capability search) are decided per realm.
  if ((tool === "provider_about" || tool === "object_schema") && !(input as { namespace?: string }).namespace) {
    return crossRealm(auth, tool, input as ToolInput<"provider_about" | "object_schema">, now);
  }

  const target = targetOf(tool, input);
  const outcome = await db.transaction(async (tx) => {
    const realm = await requireRealm(tx, auth.tenantId, target.namespace);
    const operation = operationOf(tool, input, realm);
    const principal = principalOf(auth);
    const audit = {
      tenantId: auth.tenantId,
      event: "tool.call" as const,
      principal: auditPrincipalOf(auth),
      requestId: auth.requestId,
      namespace: target.namespace,
      operation,
      ref: target.ref,
    };

    const ctx: RealmContext = {
      tx,
      tenantId: auth.tenantId,
      principal,
      requestId: auth.requestId,
      now,
      appUrl: env().appUrl,
      grantScope: null,
      delivery: deliveryPort(tx, {
        tenantId: auth.tenantId,
        principalId: auth.kind === "user" ? auth.userId : auth.actorId,
        audit: auditPrincipalOf(auth),
        requestId: auth.requestId,
        appUrl: env().appUrl,
        now,
      }),
    };
    const exactOnly = realm.manifest.actions.find((a) => actionOperationKey(a.name) === operation)?.approval_required === true;
    // What contains the named object, so a grant scoped to a container covers it (read only for the decision).
    const ref = target.ref;
    const lineage = ref && realm.adapter.lineage ? async () => (await realm.adapter.lineage!(ctx, { refs: [ref] }))[ref] ?? [] : undefined;
    const decision = await readAndDecideGateOne(tx, { tenantId: auth.tenantId, principal, namespace: target.namespace, operation, ref: target.ref, now, exactOnly, lineage });
    if (!decision.allow) {
      let consentRequestId: string | undefined;
      if (auth.kind === "actor" && decision.code !== "operation_disabled" && decision.code !== "grant_revoked") {
        consentRequestId = (
          await recordConsentRequest(tx, {
            tenantId: auth.tenantId,
            actorId: auth.actorId,
            grantorId: auth.grantorId,
            namespace: target.namespace,
            operation,
            ref: target.ref,
            requestId: auth.requestId,
          })
        ).id;
      }
      await recordAudit(tx, { ...audit, outcome: "deny", gate: "one", reason: decision.code, subjectId: decision.grantId, details: { tool, wall: decision.wall } });
      const grantorName = auth.kind === "actor" ? await userName(tx, auth.grantorId) : "";
      return {
        error: gateOneError(decision, {
          namespace: target.namespace,
          operation,
          ref: target.ref,
          appUrl: env().appUrl,
          actorName: auth.kind === "actor" ? auth.actorName : "",
          grantorName,
          consentRequestId,
        }),
      };
    }

    const idem = idempotencyOf(tool, input);
    ctx.grantScope = decision.scope ?? null;

    try {
      const replay = idem ? await idempotentReplay(tx, auth, tool, idem) : undefined;
      if (replay !== undefined) {
        await recordAudit(tx, { ...audit, outcome: "allow", gate: null, subjectId: decision.grantId, details: { tool, replayed: true } });
        return { result: replay };
      }
      // A savepoint: a failed effect leaves nothing half-written, while its audit record still commits.
      const result = await tx.transaction(async (sp) => {
        const r = await runTool(tool, input, realm, { ...ctx, tx: sp }, { auth, scopePrefix: decision.scope?.ref_prefix ?? null, operation });
        const shaped = await shapeResult(r, { ...ctx, tx: sp }, target.namespace);
        if (idem) await storeIdempotent(sp, auth, tool, idem, shaped);
        return shaped;
      });
      await recordAudit(tx, { ...audit, outcome: "allow", gate: null, subjectId: decision.grantId, details: { tool } });
      return { result };
    } catch (err) {
      const code = isAppError(err) ? err.code : "internal_error";
      const gateTwo = GATE_TWO_CODES.has(code);
      await recordAudit(tx, {
        ...audit,
        outcome: gateTwo ? "deny" : "error",
        gate: gateTwo ? "two" : null,
        reason: code,
        subjectId: decision.grantId,
        details: { tool },
      });
      return { error: err };
    }
  });
  if ("error" in outcome) throw outcome.error;
  return outcome.result;
}

async function userName(tx: Tx, userId: string): Promise<string> {
  const [u] = await tx.select({ name: users.name }).from(users).where(eq(users.id, userId));
  return u?.name ?? "your user";
}

/** The realm list and cross-realm capability search: one audit record, covering the realms listed. */
async function crossRealm(auth: AuthContext, tool: "provider_about" | "object_schema", input: ToolInput<"provider_about" | "object_schema">, now: Date) {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const realms = await listRealms(tx, auth.tenantId);
    const allowed = await allowedOperations(tx, auth, realms, now);
    const op: OperationKey = tool === "provider_about" ? "provider.about" : "object.schema";
    // Only realms where the caller may use this very operation are described.
    for (const [ns, ops] of allowed) if (!ops.has(op)) allowed.delete(ns);
    const s = input as ToolInput<"object_schema">;
    let result: unknown;
    if (tool === "provider_about") result = aboutRoot(realms, allowed);
    else if (s.query) result = await schemaQuery(realms, allowed, s.query, { limit: s.limit, asked: s.search_mode, db: tx, grantable: await grantableOperations(tx, auth, realms) });
    else if (s.schema_path || s.kind || s.operation) throw new AppError("invalid_input", "schema_path, kind and operation need a namespace.");
    else result = schemaRoot(realms, allowed);
    await recordAudit(tx, {
      tenantId: auth.tenantId,
      event: "tool.call",
      principal: auditPrincipalOf(auth),
      requestId: auth.requestId,
      operation: op,
      outcome: "allow",
      details: { tool, realms: [...allowed.keys()] },
    });
    return result;
  });
}

type Target = { namespace: string; ref: string | null };

function targetOf(tool: ToolName, input: Record<string, unknown>): Target {
  const ref = typeof input.ref === "string" ? input.ref : null;
  const ns = typeof input.namespace === "string" ? input.namespace : null;
  if (ref) {
    const fromRef = namespaceOfRef(ref);
    if (ns && ns !== fromRef) throw new AppError("invalid_input", `The ref belongs to ${fromRef}, not ${ns}.`, { details: { ref, namespace: ns } });
    return { namespace: fromRef, ref };
  }
  if (!ns) {
    const needs = tool === "delete_object" ? "a ref" : "a ref, or a namespace (with kind and selector)";
    throw new AppError("invalid_input", `${tool} needs ${needs}.`);
  }
  return { namespace: ns, ref: null };
}

function operationOf(tool: ToolName, input: Record<string, unknown>, realm: Realm): OperationKey {
  const m = realm.manifest;
  if (tool !== "object_action") {
    const op = toolOperation[tool] as OperationKey;
    if (!operationKeysOf(m).includes(op)) throw new AppError("invalid_input", `${m.namespace} does not offer ${op}.`, { details: { namespace: m.namespace, operation: op } });
    return op;
  }
  const action = String(input.action);
  const exact = m.actions.find((a) => a.name === action);
  if (!exact || !actionNameSchema.safeParse(action).success) {
    throw new AppError("invalid_input", `Unknown action ${JSON.stringify(action.slice(0, 80))} in ${m.namespace}. Action names match exactly.`, {
      details: { namespace: m.namespace, known_actions: m.actions.map((a) => a.name).slice(0, 100) },
    });
  }
  return actionOperationKey(exact.name);
}

type RunOpts = { auth: AuthContext; scopePrefix: string | null; operation: OperationKey };

async function runTool(tool: ToolName, raw: Record<string, unknown>, realm: Realm, ctx: RealmContext, o: RunOpts): Promise<unknown> {
  const m = realm.manifest;
  const a = realm.adapter;
  // Only the describing tools need what the caller may use here; the others were decided by gate one.
  const allowedHere = async () => (await allowedOperations(ctx.tx, o.auth, [realm], ctx.now)).get(m.namespace) ?? new Set<OperationKey>();
  const scope = o.scopePrefix ? { ref_prefix: o.scopePrefix } : null;
  /** Which of these refs the grant's scope covers, themselves or through what contains them. */
  const inScope = async (refs: string[]): Promise<Set<string>> => {
    if (!scope || refs.length === 0) return new Set(refs);
    // Only refs not directly under the scope need what contains them.
    const outside = refs.filter((r) => !coversResource(scope, o.operation, r));
    const lineage = outside.length && a.lineage ? await a.lineage(ctx, { refs: outside }) : {};
    return new Set(refs.filter((r) => coversResource(scope, o.operation, r, lineage[r] ?? [])));
  };
  const resolveTarget = async (input: { ref?: string; kind?: string; selector?: Record<string, string> }): Promise<string> => {
    if (input.ref) return input.ref;
    if (!input.kind || !input.selector) throw new AppError("invalid_input", "Give a ref, or a kind with a selector.");
    const declared = m.selectors.filter((s) => s.kind === input.kind).map((s) => s.by);
    const unknown = Object.keys(input.selector).filter((k) => !declared.includes(k));
    if (unknown.length || declared.length === 0) {
      throw new AppError("invalid_input", `No selector ${unknown.join(", ") || "at all"} for ${input.kind}.`, { details: { kind: input.kind, selectors: declared } });
    }
    const r = await a.resolve(ctx, { kind: input.kind, selector: input.selector });
    if ("choices" in r) {
      const covered = await inScope(r.choices.map((c) => c.ref));
      const choices = r.choices.filter((c) => covered.has(c.ref));
      if (choices.length === 1) return choices[0]!.ref;
      if (choices.length === 0) throw new AppError("not_found", `Nothing in ${input.kind} matches that selector.`, { details: { selector: input.selector } });
      throw new AppError("ambiguous_selector", `${choices.length} objects match; pick one ref and call again.`, { details: { selector: input.selector, choices: choices.slice(0, 20) } });
    }
    return r.ref;
  };
  const scoped = async (ref: string) => {
    if (!(await inScope([ref])).has(ref)) throw new AppError("not_found", `No object ${ref} (or you may not see it).`, { details: { ref } });
    return ref;
  };
  const pageSize = (limit: number | undefined) => Math.min(limit ?? DEFAULT_PAGE, m.delivery.max_page_size);
  const requireKind = (kind: string, op: "object.list" | "object.search" | "object.upsert") => {
    const k = m.kinds.find((x) => x.name === kind);
    if (!k) throw new AppError("invalid_input", `No kind ${kind} in ${m.namespace}.`, { details: { known_kinds: m.kinds.map((x) => x.name) } });
    if (!k.operations.includes(op)) throw new AppError("invalid_input", `${kind} does not support ${op}.`, { details: { kind, operations: k.operations } });
    return k;
  };
  const principalId = o.auth.kind === "user" ? o.auth.userId : o.auth.actorId;

  switch (tool) {
    case "provider_about":
      return aboutRealm(m, await allowedHere());
    case "object_schema": {
      const s = raw as ToolInput<"object_schema">;
      const modes = [s.schema_path, s.query, s.kind, s.operation].filter((x) => x !== undefined).length;
      if (modes > 1) throw new AppError("invalid_input", "Give one of schema_path, query, kind or operation.");
      if (s.operation) return schemaOperation(m, s.operation);
      const allowed = await allowedHere();
      const grantable = (await grantableOperations(ctx.tx, o.auth, [realm])).get(m.namespace) ?? new Set<OperationKey>();
      if (s.query) {
        return await schemaQuery([realm], new Map([[m.namespace, allowed]]), s.query, {
          limit: s.limit,
          asked: s.search_mode,
          db: ctx.tx,
          grantable: new Map([[m.namespace, grantable]]),
        });
      }
      if (s.kind) return schemaKind(m, s.kind, allowed);
      return schemaNode(m, s.schema_path ?? "/", allowed, grantable);
    }
    case "list_objects":
    case "search_objects": {
      const s = raw as ToolInput<"list_objects"> & { query?: string };
      if (tool === "list_objects" || s.kind) requireKind(s.kind, tool === "list_objects" ? "object.list" : "object.search");
      const binding = { tenantId: ctx.tenantId, principalId, tool, listing: { ns: m.namespace, kind: s.kind ?? null, filter: s.filter ?? {}, q: s.query ?? null } };
      const after = s.cursor ? decodeCursor(s.cursor, binding) : null;
      const limit = pageSize(s.limit);
      const page =
        tool === "list_objects"
          ? await a.list(ctx, { kind: s.kind, filter: s.filter ?? {}, after, limit })
          : await a.search(ctx, { kind: s.kind ?? null, query: s.query!, filter: s.filter ?? {}, after, limit });
      const covered = await inScope(page.items.map((i) => i.ref));
      return { items: page.items.filter((i) => covered.has(i.ref)), next_cursor: page.next ? encodeCursor(page.next, binding) : null };
    }
    case "get_object": {
      const s = raw as ToolInput<"get_object">;
      return a.get(ctx, { ref: await scoped(await resolveTarget(s)), full: s.full ?? false });
    }
    case "object_action": {
      const s = raw as ToolInput<"object_action">;
      const action = m.actions.find((x) => x.name === s.action)!;
      const payload = validatePayload(action.payload_schema, s.payload ?? {}, `${m.namespace} ${action.name}`);
      let ref: string | null = null;
      if (action.target_kind) {
        ref = await scoped(await resolveTarget({ ref: s.ref, kind: s.kind ?? action.target_kind, selector: s.selector }));
      } else if (s.ref || s.selector) {
        throw new AppError("invalid_input", `${action.name} runs on the namespace, not on an object: omit ref and selector.`);
      }
      return a.action(ctx, { action, ref, payload });
    }
    case "upsert_object": {
      const s = raw as ToolInput<"upsert_object">;
      requireKind(s.kind, "object.upsert");
      if (s.ref) await scoped(s.ref);
      return a.upsert(ctx, { kind: s.kind, ref: s.ref ?? null, fields: s.fields });
    }
    case "host_file": {
      const s = raw as ToolInput<"host_file">;
      if (!m.delivery.files) throw new AppError("invalid_input", `${m.namespace} does not store files.`);
      const bytes = Buffer.from(s.content_base64, "base64");
      if (bytes.byteLength > MAX_FILE_BYTES) throw new AppError("payload_too_large", `Files are limited to ${MAX_FILE_BYTES} bytes.`, { details: { max_bytes: MAX_FILE_BYTES } });
      const hosted = await a.hostFile(ctx, { name: s.name, contentType: s.content_type, bytes: new Uint8Array(bytes) });
      return { ...hosted, ...(await ctx.delivery.fileUrl(hosted.file_id, { name: s.name })) };
    }
    case "delete_object": {
      const s = raw as ToolInput<"delete_object">;
      return a.delete(ctx, { ref: await scoped(s.ref) });
    }
  }
}

/** Large results become a file URL instead of megabytes inline. */
async function shapeResult(result: unknown, ctx: RealmContext, namespace: string): Promise<unknown> {
  const text = JSON.stringify(result);
  if (Buffer.byteLength(text) <= MAX_INLINE_RESULT_BYTES) return result;
  const authority = ctx.principal.type === "user" ? ctx.principal.userId : ctx.principal.grantorId;
  const stored = await ctx.delivery.storeFile({ namespace, name: "result.json", contentType: "application/json", bytes: new TextEncoder().encode(text), ownerUserId: authority });
  return { truncated: true, bytes: Buffer.byteLength(text), result: await ctx.delivery.fileUrl(stored.fileId, { name: "result.json" }) };
}

// --- idempotency -------------------------------------------------------------------------------------

type Idem = { key: string; bodyHash: string };

function idempotencyOf(tool: ToolName, input: Record<string, unknown>): Idem | null {
  if (tool !== "object_action" && tool !== "upsert_object" && tool !== "host_file") return null;
  const key = input.idempotency_key;
  if (typeof key !== "string") return null;
  const { idempotency_key: _omit, ...body } = input;
  return { key, bodyHash: createHash("sha256").update(canonicalJson(body)).digest("hex") };
}

async function idempotentReplay(tx: Tx, auth: AuthContext, tool: ToolName, idem: Idem): Promise<unknown | undefined> {
  const principalId = auth.kind === "user" ? auth.userId : auth.actorId;
  // Same key at once: the second waits for the first, then replays it.
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`${auth.tenantId}|${principalId}|${tool}|${idem.key}`}, 0))`);
  const rows = await tx.execute<{ body_hash: string; result: unknown }>(
    sql`select body_hash, result from idempotency_records where tenant_id = ${auth.tenantId} and principal_id = ${principalId} and tool = ${tool} and key = ${idem.key}`,
  );
  const row = (rows as unknown as { rows: { body_hash: string; result: unknown }[] }).rows[0];
  if (!row) return undefined;
  if (row.body_hash !== idem.bodyHash) {
    throw new AppError("idempotency_conflict", "This idempotency_key was used with a different request body.", { details: { idempotency_key: idem.key } });
  }
  return row.result;
}

async function storeIdempotent(tx: Tx, auth: AuthContext, tool: ToolName, idem: Idem, result: unknown) {
  const principalId = auth.kind === "user" ? auth.userId : auth.actorId;
  await tx.execute(
    sql`insert into idempotency_records (tenant_id, principal_id, tool, key, body_hash, result) values (${auth.tenantId}, ${principalId}, ${tool}, ${idem.key}, ${idem.bodyHash}, ${JSON.stringify(result ?? null)}::jsonb)`,
  );
}
