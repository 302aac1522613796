// Importing an OpenAPI document as a realm (owner only): read and check the document, build a card and a
// contract per operation, show what a re-import would change (`dry_run`), and apply it in one transaction —
// the realm row, every operation, the sealed credential and the audit record land together or not at all.
//
// Cost: the CPU-heavy part (parse, dereference, compile, serialise, digest, gzip) runs in a worker thread under
// a cost cap (compile-runner.ts) before any transaction opens; the main thread only diffs the cards and writes.
// The write is one transaction on purpose — a realm is never seen half-imported, and grants whose operations
// change meaning are suspended in the same commit — so it holds only the writes: statements of at most
// INSERT_ROWS rows and INSERT_BYTES of contract JSON (passed as text and cast to jsonb, never re-serialised
// here), and no compile work.
import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db, Executor } from "@/db/client";
import { openapiOperations, openapiRealms } from "@/db/schema";
import { recordChange } from "@/lib/audit/record";
import type { UserContext } from "@/lib/authz/context";
import { grantsAffectedBy, suspendChangedOperations } from "@/lib/authz/suspensions";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { namespaceSchema, type Risk } from "@/lib/realms/contract";
import { builtInRealms, findRealm } from "@/lib/realms/registry";
import type { OperationCard } from "@/lib/realms/openapi/compile";
import { contractText, type CompileJobResult } from "@/lib/realms/openapi/compile-job";
import { compileDocument } from "@/lib/realms/openapi/compile-runner";
import { credentialSchema, describeCredential, sealCredential } from "@/lib/realms/openapi/credentials";
import { checkTarget, egress, failureKind } from "@/lib/realms/openapi/egress";
import { NetError } from "@/lib/net";
import { MAX_SPEC_BYTES, type JsonObject } from "@/lib/realms/openapi/spec";
import { MAX_FILE_PATH, MAX_SPEC_FILES, MAX_SPEC_FILES_BYTES, missingFiles, refError, type SpecFiles } from "@/lib/realms/openapi/spec-refs";
import { MAX_PURPOSE } from "@/lib/realms/openapi/text";
import { AFFECTED_LIST_CAP, grantCount, meaningChanges } from "./meaning";
import { curations, operationCards, realmHead, realmRecord } from "@/lib/realms/openapi/store";

/** The import route reads bodies up to this size (a 50 MB document, JSON-escaped, plus the other fields). */
export const MAX_IMPORT_BODY_BYTES = MAX_SPEC_BYTES + 8 * 1024 * 1024;
const SPEC_FETCH_TIMEOUT_MS = 20_000;
const LIST_CAP = 200;
/** The longest realm name (service card title). */
export const MAX_TITLE = 80;
/** Bounds of one INSERT of operations: rows, and bytes of contract JSON. */
const INSERT_ROWS = 250;
const INSERT_BYTES = 1024 * 1024;

/** One line of text, runs of white space (line breaks included) made one space, within bounds; no control characters. */
const oneLine = (min: number, max: number) =>
  z
    .string()
    .max(max * 4)
    .transform((v) => v.replace(/\s+/g, " ").trim())
    .pipe(
      z
        .string()
        .min(min, "must not be empty")
        .max(max, `at most ${max} characters`)
        .refine((v) => !/[\u0000-\u001f\u007f-\u009f]/.test(v), "must not contain control characters"),
    );

const httpUrl = z.url({ protocol: /^https?$/, message: "must be an http(s) URL" }).max(2000);

export const importBody = z
  .strictObject({
    namespace: namespaceSchema,
    /** The document: JSON or YAML text (pasted, or read from an uploaded file), or a JSON object. */
    spec: z.union([z.string().min(1), z.record(z.string(), z.unknown())]).optional(),
    spec_url: httpUrl.optional(),
    /** How the document arrived, for the record; defaults to `url` with spec_url, else `paste`. */
    source: z.enum(["upload", "paste", "url"]).optional(),
    base_url: httpUrl.optional(),
    /** The realm's name (its service card's title); defaults to the document's `info.title`. */
    title: oneLine(1, MAX_TITLE).optional(),
    /** The realm's purpose; defaults to the first sentence of `info.description`, markdown stripped. */
    description: oneLine(0, MAX_PURPOSE).optional(),
    /** Companion files the document's relative `$ref`s name, by path relative to the document (see spec-refs.ts). */
    spec_files: z.record(z.string().min(1).max(MAX_FILE_PATH), z.string()).optional(),
    keywords: z.array(z.string().trim().min(1).max(40)).max(30).optional(),
    /** The credential calls carry; `null` removes it, leaving it out keeps the current one. */
    credential: credentialSchema.nullable().optional(),
    dry_run: z.boolean().optional(),
  })
  .refine((b) => (b.spec === undefined) !== (b.spec_url === undefined), { message: "give exactly one of spec and spec_url", path: ["spec"] })
  .refine((b) => b.spec_files === undefined || b.spec !== undefined, { message: "spec_files go with spec (a document fetched by URL has its files fetched beside it)", path: ["spec_files"] })
  .refine((b) => b.spec_files === undefined || Object.keys(b.spec_files).length <= MAX_SPEC_FILES, { message: `at most ${MAX_SPEC_FILES} files`, path: ["spec_files"] });
export type ImportBody = z.infer<typeof importBody>;

export type OperationChange = { action: string; changes: string[] };
export type ImportDiff = {
  added: { count: number; operations: string[] };
  removed: { count: number; operations: string[] };
  changed: { count: number; operations: OperationChange[] };
  unchanged: number;
};

/** What changed between the stored cards and the new ones, operation by operation. */
export function diffCards(before: OperationCard[], after: OperationCard[]): ImportDiff {
  const old = new Map(before.map((c) => [c.action, c]));
  const now = new Map(after.map((c) => [c.action, c]));
  const added = after.filter((c) => !old.has(c.action)).map((c) => c.action);
  const removed = before.filter((c) => !now.has(c.action)).map((c) => c.action);
  const changed: OperationChange[] = [];
  let unchanged = 0;
  for (const c of after) {
    const o = old.get(c.action);
    if (!o) continue;
    const changes: string[] = [];
    if (o.method !== c.method || o.path !== c.path) changes.push(`endpoint ${o.method} ${o.path} → ${c.method} ${c.path}`);
    if (o.input_hash !== c.input_hash) {
      const gone = o.input_fields.filter((f) => !c.input_fields.includes(f));
      const fresh = c.input_fields.filter((f) => !o.input_fields.includes(f));
      const nowRequired = c.required_fields.filter((f) => !o.required_fields.includes(f));
      const parts = [fresh.length ? `+${fresh.join(", +")}` : "", gone.length ? `-${gone.join(", -")}` : "", nowRequired.length ? `now required: ${nowRequired.join(", ")}` : ""].filter(Boolean);
      changes.push(`input ${parts.length ? parts.join("; ") : "schema details"}`);
    }
    if (o.summary !== c.summary) changes.push("summary");
    if (o.risk !== c.risk) changes.push(`risk ${o.risk} → ${c.risk}`);
    if (o.scopes.join(" ") !== c.scopes.join(" ")) changes.push("scopes");
    if (o.deprecated !== c.deprecated) changes.push(c.deprecated ? "now deprecated" : "no longer deprecated");
    if (changes.length) changed.push({ action: c.action, changes });
    else unchanged++;
  }
  return {
    added: { count: added.length, operations: added.slice(0, LIST_CAP) },
    removed: { count: removed.length, operations: removed.slice(0, LIST_CAP) },
    changed: { count: changed.length, operations: changed.slice(0, LIST_CAP) },
    unchanged,
  };
}

/** How many rounds of companion files a URL import fetches (each round: the files the last one named). */
const MAX_REF_ROUNDS = 5;

/**
 * Compile a document, fetching the files its external `$ref`s name when it came from a URL: same origin
 * only, through lib/net, at most MAX_SPEC_FILES files and MAX_SPEC_FILES_BYTES in all, over at most
 * MAX_REF_ROUNDS rounds (a file's refs may name more files).
 */
async function compileWithRefs(spec: string | JsonObject, body: ImportBody): Promise<CompileJobResult> {
  const gzip = !body.dry_run;
  if (!body.spec_url) return compileDocument({ spec, gzip, files: body.spec_files });
  const docUrl = body.spec_url;
  const origin = new URL(docUrl).origin;
  const files: SpecFiles = {};
  let bytes = 0;
  for (let round = 0; ; round++) {
    try {
      return await compileDocument({ spec, gzip, files, docUrl });
    } catch (err) {
      const wanted = missingFiles(err)?.filter((u) => !Object.hasOwn(files, u));
      if (!wanted?.length) throw err;
      if (round >= MAX_REF_ROUNDS) throw refError("too_many_files", `The document's files name more files ${MAX_REF_ROUNDS} levels deep; bundle it into fewer files.`, { max_rounds: MAX_REF_ROUNDS });
      if (Object.keys(files).length + wanted.length > MAX_SPEC_FILES) throw refError("too_many_files", `The document's refs name more than ${MAX_SPEC_FILES} files.`, { max_files: MAX_SPEC_FILES });
      for (const u of wanted) {
        // The bundler only names files of the document's origin; checked again before anything is fetched.
        if (new URL(u).origin !== origin) throw refError("cross_origin", `A $ref names ${u.slice(0, 200)}: only files beside the document (same origin) are read.`, { ref: u.slice(0, 500) });
        const text = await fetchSpec(u, { ref: true });
        bytes += Buffer.byteLength(text);
        if (bytes > MAX_SPEC_FILES_BYTES) throw refError("files_too_large", `The document's companion files are larger than ${MAX_SPEC_FILES_BYTES / 1024 / 1024} MB together.`, { max_bytes: MAX_SPEC_FILES_BYTES });
        files[u] = text;
      }
    }
  }
}

async function fetchSpec(url: string, opts: { ref?: boolean } = {}): Promise<string> {
  const target = new URL(url);
  try {
    return await fetchText(target);
  } catch (err) {
    // A companion file that cannot be fetched is an unresolvable ref, with the file named.
    if (opts.ref && err instanceof AppError && err.code !== "payload_too_large") {
      throw refError("missing_file", `The file ${url.slice(0, 200)} that the document's $refs name could not be fetched: ${err.message}`, { missing_files: [url.slice(0, 500)], fetch: err.code });
    }
    throw err;
  }
}

async function fetchText(target: URL): Promise<string> {
  const url = target.href;
  try {
    const res = await egress({ url: target, method: "GET", headers: { accept: "application/json, application/yaml, text/yaml, */*;q=0.5", "user-agent": "Realmgate-OpenAPI/1" }, timeoutMs: SPEC_FETCH_TIMEOUT_MS, maxBytes: MAX_SPEC_BYTES });
    if (res.status !== 200) {
      throw new AppError("invalid_input", `Fetching the document from ${target.host} answered HTTP ${res.status}.`, { details: { spec_url: url, status: res.status } });
    }
    return res.body.toString("utf8");
  } catch (err) {
    if (!(err instanceof NetError)) throw err;
    const kind = failureKind(err);
    if (kind === "too_large") throw new AppError("payload_too_large", `The document at ${target.host} is larger than ${MAX_SPEC_BYTES / 1024 / 1024} MB.`, { details: { max_bytes: MAX_SPEC_BYTES } });
    if (kind === "blocked") throw new AppError("invalid_input", err.message, { details: { spec_url: url } });
    throw new AppError("provider_unavailable", `The document could not be fetched: ${err.message}`, { cause: err, details: { spec_url: url, reason: kind } });
  }
}

function chooseBaseUrl(given: string | undefined, servers: string[], specUrl: string | undefined): string {
  let candidate = given ?? servers[0];
  if (!candidate) throw new AppError("invalid_input", "The document names no server: give base_url.", { details: { issues: [{ path: "base_url", message: "required: the document has no servers" }] } });
  if (!/^https?:\/\//i.test(candidate)) {
    if (!specUrl) throw new AppError("invalid_input", `The document's server ${JSON.stringify(candidate)} is relative: give base_url.`, { details: { issues: [{ path: "base_url", message: "required: relative server URL" }] } });
    candidate = new URL(candidate, specUrl).toString();
  }
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    throw new AppError("invalid_input", `base_url ${JSON.stringify(candidate)} is not a URL.`, { details: { issues: [{ path: "base_url", message: "not a URL" }] } });
  }
  try {
    checkTarget(url);
  } catch (err) {
    throw new AppError("invalid_input", (err as Error).message, { details: { issues: [{ path: "base_url", message: (err as Error).message }] } });
  }
  url.search = "";
  url.hash = "";
  return url.toString().replace(/\/+$/, "");
}

type Prepared = {
  body: ImportBody;
  compiled: CompileJobResult;
  baseUrl: string;
  source: "upload" | "paste" | "url";
};

async function prepare(body: ImportBody): Promise<Prepared> {
  // The text goes to the worker as it came (parsing it is part of the job); an object is copied to it.
  const spec: string | JsonObject = body.spec_url ? await fetchSpec(body.spec_url) : (body.spec as string | JsonObject);
  const compiled = await compileWithRefs(spec, body);
  return { body, compiled, baseUrl: chooseBaseUrl(body.base_url, compiled.servers, body.spec_url), source: body.source ?? (body.spec_url ? "url" : "paste") };
}

async function assertNamespaceFree(db: Executor, tenantId: string, namespace: string) {
  if (Object.hasOwn(builtInRealms, namespace)) {
    throw new AppError("conflict", `"${namespace}" is a built-in realm; choose another namespace.`, { details: { namespace } });
  }
  const mine = await realmHead(db, tenantId, namespace);
  if (!mine && (await findRealm(db, tenantId, namespace))) {
    throw new AppError("conflict", `The namespace "${namespace}" is taken by another realm.`, { details: { namespace } });
  }
}

const riskCounts = (cards: OperationCard[]) => {
  const c: Record<Risk, number> = { read: 0, write: 0, destructive: 0 };
  for (const card of cards) c[card.risk]++;
  return c;
};

/** Titles that name no service ("API", "REST API"…): the import warns that the owner should give one. */
const VAGUE_TITLE = /^(the\s+)?((rest(ful)?|http|web|open)\s*)?(api|apis|service|server|openapi|swagger|spec(ification)?|untitled|title|imported service)(\s+(spec|document|definition))?$/i;

/** A purpose that describes the document rather than the service ("GitHub's official OpenAPI spec…", "a place to put general notes"). */
const DOCUMENT_TALK = /\b(open ?api|swagger|spec|specification|this (document|file|page)|general notes|internal use|lorem ipsum)\b/i;

/** The realm's name and purpose as the import gives them: the body's, else (kept on a re-import) the stored ones, else the document's. */
function identity(p: Prepared, kept: { title: string; description: string } | null) {
  const title = p.body.title ?? kept?.title ?? p.compiled.title;
  const description = p.body.description ?? kept?.description ?? p.compiled.description;
  const warnings: { path: string; message: string }[] = [];
  if (!p.body.title && !kept && VAGUE_TITLE.test(title.trim())) warnings.push({ path: "title", message: `the document's title ${JSON.stringify(title)} names no service; give title` });
  if (!p.body.description && !kept && DOCUMENT_TALK.test(description)) {
    warnings.push({ path: "description", message: `the document's description speaks of the document, not the service (${JSON.stringify(description.slice(0, 80))}); give description` });
  }
  return { title, description, warnings };
}

function summary(p: Prepared, diff: ImportDiff, kept: { title: string; description: string } | null) {
  const cards = p.compiled.cards;
  const dropped = p.compiled.dropped;
  const who = identity(p, kept);
  const warnings = [...who.warnings, ...p.compiled.warnings];
  return {
    namespace: p.body.namespace,
    title: who.title,
    /** The realm's purpose (its service card says it first). */
    description: who.description,
    base_url: p.baseUrl,
    spec_version: p.compiled.version,
    operations: { total: cards.length, ...riskCounts(cards) },
    diff,
    /** Operations left out of the realm, each with why (also among the warnings). */
    dropped: { count: dropped.length, operations: dropped.slice(0, LIST_CAP) },
    warnings: warnings.slice(0, 50),
    warning_count: warnings.length,
  };
}

async function storedBaseUrl(db: Executor, tenantId: string, realmId: string): Promise<string | null> {
  const [r] = await db.select({ baseUrl: openapiRealms.baseUrl }).from(openapiRealms).where(and(eq(openapiRealms.tenantId, tenantId), eq(openapiRealms.id, realmId)));
  return r?.baseUrl ?? null;
}

/**
 * Import (or re-import) a document as a realm. `dry_run` returns the diff and changes nothing, with
 * `affected_grants` — the grants whose operations the import would suspend because their meaning changes (one
 * entry per grant and operation, the first 200; `affected_grant_count` distinct grants). A real import suspends
 * them in its transaction and answers `suspended_grants` / `suspended_grant_count` in the same shape.
 */
export async function importRealm(db: Db, who: UserContext, body: ImportBody) {
  if (who.role !== "owner") throw new AppError("forbidden", "Only a tenant owner may import a service.");
  const p = await prepare(body);
  const cards = p.compiled.cards;

  if (body.dry_run) {
    await assertNamespaceFree(db, who.tenantId, body.namespace);
    const head = await realmHead(db, who.tenantId, body.namespace);
    const before = head ? await operationCards(db, who.tenantId, head.id) : [];
    // The grants whose operations this import would suspend (listed, nothing written).
    const changes = head ? meaningChanges(before, cards, await curations(db, who.tenantId, head.id), { from: await storedBaseUrl(db, who.tenantId, head.id), to: p.baseUrl }) : [];
    const affected = await grantsAffectedBy(db, who.tenantId, body.namespace, changes);
    return {
      ...summary(p, diffCards(before, cards), head ? await realmRecord(db, who.tenantId, head.id) : null),
      realm_id: head?.id ?? null,
      version: head?.version ?? null,
      dry_run: true,
      applied: false,
      exists: Boolean(head),
      affected_grants: affected.slice(0, AFFECTED_LIST_CAP),
      affected_grant_count: grantCount(affected),
    };
  }

  const specGzip = p.compiled.specGzip!;
  return db.transaction(async (tx) => {
    await assertNamespaceFree(tx, who.tenantId, body.namespace);
    // One import of a namespace at a time: the second waits, then diffs against what the first stored.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`openapi-import|${who.tenantId}|${body.namespace}`}, 0))`);
    const head = await realmHead(tx, who.tenantId, body.namespace);
    const before = head ? await operationCards(tx, who.tenantId, head.id) : [];
    const diff = diffCards(before, cards);
    // An operation whose endpoint moved or whose risk rose is suspended on every grant covering it, in this
    // transaction: what a person approved is not what the agent would now get.
    const changes = head ? meaningChanges(before, cards, await curations(tx, who.tenantId, head.id), { from: await storedBaseUrl(tx, who.tenantId, head.id), to: p.baseUrl }) : [];
    const suspended = await suspendChangedOperations(tx, who, body.namespace, changes);
    const realmId = head?.id ?? newId("oas");
    const kept = head ? await realmRecord(tx, who.tenantId, head.id) : null;
    const version = (head?.version ?? 0) + 1;
    const values = {
      // Left out on a re-import, the name, purpose and keywords the realm has stay (an owner's choice is not
      // reset to the document's); a first import takes them from the document.
      title: body.title ?? kept?.title ?? p.compiled.title,
      description: body.description ?? kept?.description ?? p.compiled.description,
      keywords: body.keywords ?? kept?.keywords ?? [],
      baseUrl: p.baseUrl,
      specSource: p.source,
      specUrl: body.spec_url ?? null,
      specVersion: p.compiled.version,
      specSha256: p.compiled.sha256,
      specGzip,
      operationCount: cards.length,
      version,
      updatedAt: new Date(),
      ...(body.credential !== undefined
        ? { credentialSealed: body.credential ? sealCredential(who.tenantId, realmId, body.credential) : null, credentialKind: body.credential?.type ?? null }
        : {}),
    };
    if (head) {
      await tx.update(openapiRealms).set(values).where(and(eq(openapiRealms.tenantId, who.tenantId), eq(openapiRealms.id, realmId)));
      await tx.delete(openapiOperations).where(and(eq(openapiOperations.tenantId, who.tenantId), eq(openapiOperations.realmId, realmId)));
    } else {
      await tx.insert(openapiRealms).values({ id: realmId, tenantId: who.tenantId, namespace: body.namespace, createdBy: who.userId, ...values });
    }
    const contracts = p.compiled.contracts!;
    const offsets = contracts.offsets;
    for (let start = 0; start < cards.length; ) {
      let end = start + 1;
      while (end < cards.length && end - start < INSERT_ROWS && offsets[end + 1]! - offsets[start]! <= INSERT_BYTES) end++;
      // Between statements the event loop turns: on embedded PGlite each statement runs on this thread.
      if (start > 0) await new Promise((resolve) => setImmediate(resolve));
      const rows = cards.slice(start, end).map((card, i) => ({
        realmId,
        tenantId: who.tenantId,
        action: card.action,
        position: start + i,
        method: card.method,
        path: card.path,
        card,
        // Already JSON (made in the worker): cast, not serialised again on this thread.
        contract: sql`${contractText(contracts, start + i)}::jsonb`,
      }));
      await tx.insert(openapiOperations).values(rows);
      start = end;
    }
    const [cred] = await tx
      .select({ kind: openapiRealms.credentialKind, sealed: openapiRealms.credentialSealed })
      .from(openapiRealms)
      .where(and(eq(openapiRealms.tenantId, who.tenantId), eq(openapiRealms.id, realmId)));
    await recordChange(tx, who, "realm.imported", {
      namespace: body.namespace,
      subjectId: realmId,
      details: {
        version,
        spec_sha256: p.compiled.sha256,
        source: p.source,
        operations: cards.length,
        added: diff.added.count,
        removed: diff.removed.count,
        changed: diff.changed.count,
        suspended_grants: grantCount(suspended),
        credential: body.credential === undefined ? "kept" : body.credential ? "set" : "removed",
      },
    });
    return {
      ...summary(p, diff, kept),
      realm_id: realmId,
      version,
      dry_run: false,
      applied: true,
      exists: Boolean(head),
      credential: describeCredential(cred?.kind ?? null, cred?.sealed ?? null),
      suspended_grants: suspended.slice(0, AFFECTED_LIST_CAP),
      suspended_grant_count: grantCount(suspended),
    };
  });
}

/** The tenant's imported services (owner view). */
export async function listImportedRealms(db: Executor, who: UserContext) {
  if (who.role !== "owner") throw new AppError("forbidden", "Only a tenant owner manages imported services.");
  const rows = await db
    .select({
      id: openapiRealms.id,
      namespace: openapiRealms.namespace,
      title: openapiRealms.title,
      baseUrl: openapiRealms.baseUrl,
      specVersion: openapiRealms.specVersion,
      specSource: openapiRealms.specSource,
      operationCount: openapiRealms.operationCount,
      version: openapiRealms.version,
      credentialKind: openapiRealms.credentialKind,
      credentialSealed: openapiRealms.credentialSealed,
      updatedAt: openapiRealms.updatedAt,
    })
    .from(openapiRealms)
    .where(eq(openapiRealms.tenantId, who.tenantId))
    .orderBy(openapiRealms.namespace);
  return rows.map((r) => ({
    realm_id: r.id,
    namespace: r.namespace,
    title: r.title,
    base_url: r.baseUrl,
    spec_version: r.specVersion,
    source: r.specSource,
    operations: r.operationCount,
    version: r.version,
    credential: describeCredential(r.credentialKind, r.credentialSealed),
    updated_at: r.updatedAt.toISOString(),
  }));
}
