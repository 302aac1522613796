// A remote realm's adapter: the realm contract over the provider protocol (docs/provider-protocol.md). Ref syntax
// is checked here from the manifest's templates (no call); every other operation is one signed call with the
// authorization context. What the provider answers is checked before anyone sees it — every ref it returns must be
// its own, shapes must be the protocol's — and its file and upload markers become Realmgate's signed links, so the
// bytes stream between the provider and the caller and never sit in a tool result.
import { AppError, isAppError } from "@/lib/errors";
import type { Filter, LeanItem, ParsedRef, Realm, RealmAdapter, RealmContext, RealmManifest, RefDescription, ResolveResult } from "@/lib/realms/contract";
import { callProvider, fetchManifestDocument, MAX_FILE_BYTES, streamFromProvider, transitionOf, versionOfError, type ProviderTarget } from "@/lib/remote/client";
import { checkManifestDocument, MAX_MANIFEST_BYTES } from "@/lib/remote/manifest";
import { authorizationContext } from "@/lib/remote/context";
import { mayRefresh, refreshManifest, recordBreaker } from "@/lib/remote/refresh";
import { kindOfRef, refMatchers } from "@/lib/remote/refs";
import { openSecret, type RemoteProvider } from "@/lib/remote/store";

type Json = Record<string, unknown>;
/** The link parameter naming the registration a link or slot was minted under. */
const REGISTRATION_PARAM = "rrp";
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

export function remoteRealm(row: RemoteProvider): Realm {
  const manifest = row.manifest as RealmManifest;
  const ns = manifest.namespace;
  const matchers = refMatchers(manifest.kinds);
  const refFields = new Map(manifest.kinds.map((k) => [k.name, k.fields.filter((f) => f.type === "ref" || f.type === "ref[]").map((f) => f.name)]));
  const fileFields = new Map(manifest.kinds.map((k) => [k.name, k.fields.filter((f) => f.type === "file").map((f) => f.name)]));
  const target = (): ProviderTarget => ({ id: row.id, namespace: ns, baseUrl: row.baseUrl, secret: openSecret(row) });

  const badAnswer = (message: string) => new AppError("provider_unavailable", `The ${ns} provider's answer was refused: ${message}`, { details: { provider: ns, reason: "bad_answer" } });
  /** A ref the provider returned: its own by a template, or the whole answer is refused. */
  const ownRef = (v: unknown, where: string): string => {
    if (typeof v !== "string" || !kindOfRef(matchers, v)) throw badAnswer(`${where} ${JSON.stringify(v)?.slice(0, 120)} is not a ref of ${ns} (${manifest.kinds.map((k) => k.ref_pattern).join(", ")})`);
    return v;
  };

  function afterCall(ctx: RealmContext, transition: ReturnType<typeof transitionOf>, version: string | null) {
    if (transition) ctx.settled((tx) => recordBreaker(tx, row, transition, ctx.requestId));
    if (version && version !== row.manifestVersion && mayRefresh(row.id)) ctx.settled(async (tx) => void (await refreshManifest(tx, row, { type: "system" }, ctx.requestId)));
  }

  async function contextFor(ctx: RealmContext, fallbackOperation: string) {
    if (row.status !== "active") {
      // Unavailable until a manifest validates again: fetch it once in a while (not on every call) to see.
      if (mayRefresh(row.id)) {
        // Fetched and checked here; stored as a settled write (the call itself fails, so its transaction may not).
        const doc = await fetchManifestDocument(row.baseUrl, MAX_MANIFEST_BYTES).catch(() => null);
        // Stored either way: a valid one brings the realm back, another invalid one updates the reason on its card.
        if (doc !== null) ctx.settled(async (tx) => void (await refreshManifest(tx, row, { type: "system" }, ctx.requestId, doc)));
        if (doc !== null && checkManifestDocument(doc, { namespace: ns }).ok) {
          throw new AppError("provider_unavailable", `The ${ns} provider serves a valid manifest again; call again now.`, {
            status: 503,
            headers: { "Retry-After": "0" },
            details: { provider: ns, reason: "manifest_valid_again", retry: "call again now" },
          });
        }
      }
      throw new AppError("provider_unavailable", `The ${ns} provider is unavailable: ${row.statusReason ?? "its manifest no longer validates"}.`, {
        status: 503,
        details: { provider: ns, reason: "manifest_invalid", problems: row.statusReason ?? "", who_can_fix: "The provider's team (then it is used again on its next valid manifest), or a workspace owner" },
      });
    }
    return authorizationContext({ tx: ctx.tx, tenantId: ctx.tenantId, registrationId: row.id, manifestVersion: row.manifestVersion, principal: ctx.principal, operation: ctx.operation ?? fallbackOperation, scope: ctx.grantScope ?? null, now: ctx.now });
  }

  async function call(ctx: RealmContext, op: string, operation: string, input: unknown): Promise<unknown> {
    const context = await contextFor(ctx, operation);
    try {
      const answer = await callProvider(target(), op, context, input);
      afterCall(ctx, answer.transition, answer.manifestVersion);
      return answer.result;
    } catch (err) {
      afterCall(ctx, transitionOf(err), versionOfError(err));
      throw err;
    }
  }

  const leanItems = (v: unknown, where: string): LeanItem[] => {
    if (!Array.isArray(v)) throw badAnswer(`${where} is not a list`);
    return v.map((it, i) => {
      if (!isObject(it) || typeof it.label !== "string") throw badAnswer(`${where}[${i}] is not an item with a ref and a label`);
      const ref = ownRef(it.ref, `${where}[${i}].ref`);
      const kind = kindOfRef(matchers, ref)!;
      const item: LeanItem = { ref, kind, label: it.label.slice(0, 500) };
      if (typeof it.summary === "string") item.summary = it.summary.slice(0, 2000);
      if (typeof it.updated_at === "string") item.updated_at = it.updated_at;
      return item;
    });
  };

  const page = (v: unknown, where: string) => {
    if (!isObject(v)) throw badAnswer(`${where} is not an object`);
    const next = v.next ?? null;
    if (next !== null && (!isObject(next) || !Object.values(next).every((x) => x === null || typeof x === "string" || typeof x === "number"))) throw badAnswer(`${where}.next is not a flat cursor object`);
    return { items: leanItems(v.items, `${where}.items`), next: next as Record<string, string | number | null> | null };
  };

  /**
   * Shapes that are Realmgate's own words in a result — a signed link (`encoding: "url"`), an upload slot (`upload`),
   * an error envelope (`error`) — are never the provider's to write: an answer carrying one is refused, so an agent
   * can trust that every link and slot it is given is Realmgate's.
   */
  const noReservedShapes = (v: unknown, where: string, depth = 0): void => {
    if (depth > 12 || v === null || typeof v !== "object") return;
    if (Array.isArray(v)) return v.forEach((x, i) => noReservedShapes(x, `${where}[${i}]`, depth + 1));
    const o = v as Json;
    if (depth === 0 && ("error" in o || "upload" in o)) throw badAnswer(`${where} uses a key Realmgate keeps for its own answers (${"error" in o ? "error" : "upload"})`);
    if ("encoding" in o && !("$file" in o)) throw badAnswer(`${where} looks like a Realmgate link (encoding); files are answered as {"$file": …}`);
    for (const [k, x] of Object.entries(o)) noReservedShapes(x, `${where}.${k}`, depth + 1);
  };

  /** Check an object's ref fields, and turn its `$file` markers into signed links streaming from the provider. */
  async function shapeObject(ctx: RealmContext, obj: unknown, ref: string, where: string): Promise<Json> {
    if (!isObject(obj)) throw badAnswer(`${where} is not an object`);
    noReservedShapes(obj, where);
    const kind = kindOfRef(matchers, ref)!;
    if (obj.ref !== undefined) ownRef(obj.ref, `${where}.ref`);
    const out: Json = { ...obj };
    for (const f of refFields.get(kind) ?? []) {
      const v = out[f];
      if (v === undefined || v === null) continue;
      if (Array.isArray(v)) v.forEach((x, i) => ownRef(x, `${where}.${f}[${i}]`));
      else ownRef(v, `${where}.${f}`);
    }
    for (const [k, v] of Object.entries(out)) {
      if (!isObject(v) || !isObject(v.$file)) continue;
      if (!(fileFields.get(kind) ?? []).includes(k)) throw badAnswer(`${where}.${k} is a file, but ${kind} declares no file field "${k}"`);
      const name = typeof v.$file.name === "string" && v.$file.name ? v.$file.name.slice(0, 200) : "file";
      const contentType = typeof v.$file.content_type === "string" ? v.$file.content_type.slice(0, 200) : undefined;
      if (!ctx.delivery.liveUrl) out[k] = { name, ...(contentType ? { content_type: contentType } : {}), encoding: "unavailable" };
      else out[k] = { name, ...(contentType ? { content_type: contentType } : {}), ...(await ctx.delivery.liveUrl({ namespace: ns, ref, method: "GET", name, params: { [REGISTRATION_PARAM]: row.id } })) };
    }
    return out;
  }

  /** A link or slot is good only with the registration that minted it: a provider registered later under the namespace gets none. */
  const sameRegistration = (params: Record<string, string> | undefined) => {
    if (params?.[REGISTRATION_PARAM] !== row.id) throw new AppError("not_found", `This link was made for an earlier registration of ${ns}.`, { details: { provider: ns } });
  };

  const adapter: RealmAdapter = {
    parseRef(ref: string): ParsedRef {
      const kind = kindOfRef(matchers, ref);
      if (!kind) throw new AppError("invalid_ref", `"${String(ref).slice(0, 120)}" is not a ${ns} ref.`, { details: { ref: String(ref).slice(0, 200), expected: manifest.kinds.map((k) => k.ref_pattern) } });
      return { kind };
    },

    async describeRefs(ctx, refs) {
      const v = await call(ctx, "describe_refs", "object.get", { refs });
      if (!isObject(v)) throw badAnswer("describe_refs is not an object");
      const out: Record<string, RefDescription | null> = {};
      for (const r of refs) {
        const d = v[r];
        if (!isObject(d) || typeof d.label !== "string") {
          out[r] = null;
          continue;
        }
        const lineage = Array.isArray(d.lineage) ? d.lineage.filter((x): x is string => typeof x === "string" && kindOfRef(matchers, x) !== null) : [];
        out[r] = { kind: kindOfRef(matchers, r) ?? String(d.kind ?? ""), label: d.label.slice(0, 500), ...(typeof d.summary === "string" ? { summary: d.summary.slice(0, 2000) } : {}), lineage };
      }
      return out;
    },

    async list(ctx, input) {
      return page(await call(ctx, "list", "object.list", { kind: input.kind, filter: input.filter, cursor: input.after, limit: input.limit }), "list");
    },

    async search(ctx, input) {
      return page(await call(ctx, "search", "object.search", { kind: input.kind, query: input.query, filter: input.filter as Filter, cursor: input.after, limit: input.limit }), "search");
    },

    async get(ctx, input) {
      const obj = await call(ctx, "get", "object.get", { ref: input.ref, full: input.full });
      // The object asked for, and no other (a provider's mix-up must not hand out an object the grant does not reach).
      if (isObject(obj) && obj.ref !== undefined && obj.ref !== input.ref) throw badAnswer(`get of ${input.ref} answered another object (${JSON.stringify(obj.ref)?.slice(0, 120)})`);
      return shapeObject(ctx, obj, input.ref, "get");
    },

    async action(ctx, input) {
      const v = await call(ctx, "action", `object.action.${input.action.name}`, { action: input.action.name, ref: input.ref, payload: input.payload });
      if (!isObject(v)) throw badAnswer(`the ${input.action.name} result is not an object`);
      const { $upload: upload, ...rest } = v;
      noReservedShapes(rest, `the ${input.action.name} result`);
      if (upload === undefined) return rest;
      if (!isObject(upload) || typeof upload.name !== "string" || !upload.name) throw badAnswer("$upload needs a name");
      if (!input.ref) throw badAnswer("$upload is only for an action that runs on an object");
      if (!ctx.delivery.liveUrl) throw new AppError("provider_unavailable", "This Realmgate cannot hand out upload slots.", { status: 503 });
      const params: Record<string, string> = {};
      for (const [k, p] of Object.entries(isObject(upload.params) ? upload.params : {})) if (typeof p === "string" && k !== REGISTRATION_PARAM && Object.keys(params).length < 10) params[k.slice(0, 40)] = p.slice(0, 500);
      params[REGISTRATION_PARAM] = row.id;
      const slot = await ctx.delivery.liveUrl({ namespace: ns, ref: input.ref, method: "PUT", name: upload.name.slice(0, 200), params });
      return { ...rest, upload: { method: "PUT", url: slot.url, expires_at: slot.expires_at, max_bytes: MAX_FILE_BYTES } };
    },

    async upsert(ctx, input) {
      const v = await call(ctx, "upsert", "object.upsert", { kind: input.kind, ref: input.ref, fields: input.fields });
      if (!isObject(v) || typeof v.created !== "boolean") throw badAnswer("upsert answers { ref, created, object }");
      const ref = ownRef(v.ref, "upsert.ref");
      return { ref, created: v.created, object: await shapeObject(ctx, v.object ?? {}, ref, "upsert.object") };
    },

    async delete(ctx, input) {
      const v = await call(ctx, "delete", "object.delete", { ref: input.ref });
      if (!isObject(v) || v.deleted !== true) throw badAnswer("delete answers { ref, deleted: true }");
      return { ref: input.ref, deleted: true };
    },

    async hostFile(ctx, input) {
      // The bytes are kept by Realmgate too, so the caller's link works whatever the provider does with its copy.
      const stored = await ctx.delivery.storeFile({ namespace: ns, name: input.name, contentType: input.contentType, bytes: input.bytes, ownerUserId: ctx.principal.type === "user" ? ctx.principal.userId : ctx.principal.grantorId });
      const v = await call(ctx, "host_file", "file.host", { name: input.name, content_type: input.contentType, bytes_base64: Buffer.from(input.bytes).toString("base64") });
      if (!isObject(v)) throw badAnswer("host_file answers { ref }");
      return { ref: ownRef(v.ref, "host_file.ref"), file_id: stored.fileId };
    },

    async resolve(ctx, input): Promise<ResolveResult> {
      const v = await call(ctx, "resolve_selector", "object.get", { kind: input.kind, selector: input.selector });
      if (isObject(v) && typeof v.ref === "string") return { ref: ownRef(v.ref, "resolve_selector.ref") };
      if (isObject(v) && Array.isArray(v.choices)) return { choices: leanItems(v.choices, "resolve_selector.choices") };
      throw badAnswer("resolve_selector answers { ref } or { choices }");
    },

    async lineage(ctx, input) {
      let v: unknown;
      try {
        v = await call(ctx, "lineage", ctx.operation ?? "object.get", { refs: input.refs });
      } catch (err) {
        // Lineage only widens what a grant reaches: a provider that cannot say means nothing is contained.
        if (isAppError(err)) return Object.fromEntries(input.refs.map((r) => [r, []]));
        throw err;
      }
      const out: Record<string, string[]> = {};
      for (const r of input.refs) {
        const l = isObject(v) ? v[r] : null;
        out[r] = Array.isArray(l) ? l.filter((x): x is string => typeof x === "string" && kindOfRef(matchers, x) !== null && x !== r) : [];
      }
      return out;
    },

    async streamFile(ctx, input) {
      sameRegistration(input.params);
      const context = await contextFor(ctx, "object.get");
      try {
        const answer = await streamFromProvider(target(), context, { ref: input.ref });
        afterCall(ctx, answer.transition, answer.manifestVersion);
        return { contentType: answer.file.contentType, filename: answer.file.filename, size: answer.file.bytes.byteLength, body: answer.file.bytes };
      } catch (err) {
        afterCall(ctx, transitionOf(err), versionOfError(err));
        throw err;
      }
    },

    async receiveUpload(ctx, input) {
      sameRegistration(input.params);
      const { [REGISTRATION_PARAM]: _reg, ...params } = input.params;
      const v = await call(ctx, "receive_upload", ctx.operation ?? "object.get", { ref: input.ref, name: input.name, content_type: input.contentType, bytes_base64: Buffer.from(input.bytes).toString("base64"), params });
      if (!isObject(v)) throw badAnswer("receive_upload answers an object");
      return v;
    },
  };
  return { manifest, adapter, ...(row.status !== "active" ? { unavailable: { reason: row.statusReason ?? "its manifest no longer validates" } } : {}) };
}
