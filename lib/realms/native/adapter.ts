// nativeAdapter: a RealmAdapter composed from kind modules. The toolkit owns what every native realm did by
// hand: ref parsing, dispatch by kind, unsupported operations, cursor tags, clamped limits, parsing fields /
// filters / selectors with the kind's zod, choices on ambiguity, and describeRefs / lineage batched by kind.
import type { z } from "zod";
import { inOneExchange } from "@/db/pipeline";
import { AppError, parseWith } from "@/lib/errors";
import type { CursorState, LeanItem, RealmAdapter, RealmContext, RealmManifest, RefDescription, ResolveResult } from "@/lib/realms/contract";
import { MAX_CHOICES, noMatch, unsupported, type KindModule, type PageOut } from "./kind";
import type { NativeRefs } from "./refs";

/** An action of a native realm: its payload schema (the manifest's payload_schema is derived from it) and its code. */
export type NativeAction<P = unknown> = { payload: z.ZodType<P>; run(ctx: RealmContext, ref: string, payload: P): Promise<Record<string, unknown>> };
export const defineAction = <P>(payload: z.ZodType<P>, run: NativeAction<P>["run"]): NativeAction<P> => ({ payload, run });

// Kind modules are heterogeneous: the toolkit only moves their values between parse and use.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyKind = KindModule<any, any, any, any, any, any>;
export type NativeKinds<S extends string> = Partial<Record<S, AnyKind>>;

export type NativeRealmSpec<S extends string> = {
  manifest: Pick<RealmManifest, "namespace" | "delivery">;
  refs: NativeRefs<S>;
  kinds: NativeKinds<S>;
  actions?: Record<string, NativeAction<any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /**
   * search_objects without a kind: one kind stands in (`"card"`), or several are searched in turn
   * (`["document", "thread"]`), the cursor's tag saying which one is running.
   */
  searchWithoutKind?: S | S[];
  hostFile?: RealmAdapter["hostFile"];
};

export function nativeAdapter<S extends string>(spec: NativeRealmSpec<S>): RealmAdapter {
  const { refs, manifest } = spec;
  const ns = manifest.namespace;
  const entries = (Object.entries(spec.kinds) as [S, AnyKind][]).filter(([, k]) => k);
  const kindName = (s: S) => refs.segments[s].kind;
  const names = entries.map(([s]) => kindName(s));
  const clamp = (limit: number) => Math.min(Math.max(1, Math.trunc(limit) || 1), manifest.delivery.max_page_size);

  function byKind(kind: string): { segment: S; k: AnyKind } {
    const found = entries.find(([s]) => kindName(s) === kind);
    if (!found) {
      const known = names.length === 1 ? `its only kind is ${names[0]}` : `its kinds are ${names.join(", ")}`;
      throw new AppError("invalid_input", `${ns} has no kind ${kind}; ${known}.`, { details: { kind } });
    }
    return { segment: found[0], k: found[1] };
  }
  const byRef = (ref: string) => byKind(refs.parse(ref).kind);

  function readAfter(segment: S, k: AnyKind, after: CursorState | null): unknown {
    if (!after) return null;
    const { k: tag, ...rest } = after;
    // `{k}` alone starts a kind's list (a search running through several kinds hands over with it).
    if (tag === segment && !Object.keys(rest).length) return null;
    const parsed = tag === segment && k.cursor ? k.cursor.safeParse(rest) : null;
    if (!parsed?.success) throw new AppError("invalid_cursor", `This cursor does not belong to a list of ${kindName(segment)}.`);
    return parsed.data;
  }

  type PageCall = { filter: unknown; query: string | null; after: CursorState | null; limit: number };
  async function page(c: RealmContext, segment: S, k: AnyKind, input: PageCall): Promise<{ items: LeanItem[]; next: CursorState | null }> {
    const op = input.query === null ? "object.list" : "object.search";
    if (!k.page || (input.query !== null && !k.searchable)) return unsupported(kindName(segment), op);
    const filter = k.schemas?.filter ? parseWith(k.schemas.filter, input.filter, "filter") : input.filter;
    const out: PageOut<unknown> = await k.page(c, { filter, query: input.query, after: readAfter(segment, k, input.after), limit: clamp(input.limit) });
    return { items: out.items, next: out.next ? ({ k: segment, ...(out.next as CursorState) } as CursorState) : null };
  }

  /**
   * A search through several kinds in turn: the first kind's page, then the next kind's with the room left, and so
   * on. Every kind's first page is asked for at once, with a full page each, in one exchange with the database
   * (db/pipeline.ts); a later kind's is used as it came when it fits the room left, else asked again with exactly
   * that room (the cursor must point inside it). One not reached is not used, nor its failure.
   */
  async function searchAcross(c: RealmContext, order: S[], query: string, after: CursorState | null, limit: number) {
    const n = clamp(limit);
    const start = after ? order.indexOf(after.k as S) : 0;
    if (start < 0) throw new AppError("invalid_cursor", `This cursor does not belong to a search of ${ns}.`);
    const pageOfKind = (s: S, from: CursorState | null, size: number) => page(c, s, spec.kinds[s]!, { filter: {}, query, after: from, limit: size });
    type Got = Awaited<ReturnType<typeof page>>;
    const settle = (p: Promise<Got>) => p.then((got) => ({ got }), (error: unknown) => ({ error }));
    const later = order.slice(start + 1);
    const [first, ...ahead] = await inOneExchange(c.tx, [() => pageOfKind(order[start]!, after, n), ...later.map((s) => () => settle(pageOfKind(s, null, n)))] as [
      () => Promise<Got>,
      ...(() => Promise<{ got: Got } | { error: unknown }>)[],
    ]);
    const items: LeanItem[] = [...first.items];
    if (first.next) return { items, next: first.next };
    for (const [j, s] of later.entries()) {
      const room = n - items.length;
      const early = ahead[j]!;
      if ("error" in early) throw early.error;
      // The page is full: whether this kind has anything is whether there is more.
      if (room === 0) return { items, next: early.got.items.length ? { k: s } : null };
      const fits = room === n || (early.got.next === null && early.got.items.length <= room);
      const got = fits ? early.got : await pageOfKind(s, null, room);
      items.push(...got.items);
      if (got.next) return { items, next: got.next };
    }
    return { items, next: null };
  }

  async function describeRefs(c: RealmContext, input: string[]): Promise<Record<string, RefDescription | null>> {
    const out: Record<string, RefDescription | null> = {};
    const ids = new Map<S, Map<string, string>>();
    for (const ref of input) {
      out[ref] = null;
      const p = refs.tryParse(ref);
      if (p) ids.set(p.segment, (ids.get(p.segment) ?? new Map<string, string>()).set(p.id, ref));
    }
    for (const [s, k] of entries) {
      const byId = ids.get(s);
      if (!byId || !k.describe) continue;
      for (const [id, d] of await k.describe(c, [...byId.keys()])) if (byId.has(id)) out[byId.get(id)!] = { kind: kindName(s), ...d };
    }
    return out;
  }

  async function lineage(c: RealmContext, input: { refs: string[] }): Promise<Record<string, string[]>> {
    const out: Record<string, string[]> = {};
    const ids = new Map<S, Map<string, string>>();
    for (const ref of input.refs) {
      out[ref] = [];
      const p = refs.tryParse(ref);
      if (p) ids.set(p.segment, (ids.get(p.segment) ?? new Map<string, string>()).set(p.id, ref));
    }
    for (const [s, k] of entries) {
      const byId = ids.get(s);
      if (!byId || !k.lineage) continue;
      for (const [id, up] of await k.lineage(c, [...byId.keys()])) if (byId.has(id)) out[byId.get(id)!] = up;
    }
    return out;
  }

  const adapter: RealmAdapter = {
    parseRef: (ref) => ({ kind: refs.parse(ref).kind }),
    describeRefs,
    async list(c, input) {
      const { segment, k } = byKind(input.kind);
      return page(c, segment, k, { ...input, query: null });
    },
    async search(c, input) {
      if (input.kind === null) {
        const fallback = spec.searchWithoutKind;
        if (fallback === undefined) throw new AppError("invalid_input", `Name a kind to search in ${ns}: ${names.join(", ")}.`, { details: { field: "kind" } });
        if (!Array.isArray(fallback)) return page(c, fallback, spec.kinds[fallback]!, input);
        if (Object.keys(input.filter).length) {
          throw new AppError("invalid_input", `Filters need a kind: search ${fallback.map(kindName).join(" or ")}.`, { details: { field: "filter" } });
        }
        return searchAcross(c, fallback, input.query, input.after, input.limit);
      }
      const { segment, k } = byKind(input.kind);
      return page(c, segment, k, input);
    },
    async get(c, input) {
      const { k } = byRef(input.ref);
      if (k.get) return k.get(c, input.ref, input.full);
      if (!k.load || !k.present) return unsupported(refs.parse(input.ref).kind, "object.get");
      return k.present(c, await k.load(c, input.ref), input.full);
    },
    async action(c, input) {
      const { action } = input;
      const handler = spec.actions && Object.hasOwn(spec.actions, action.name) ? spec.actions[action.name]! : null;
      if (!handler) throw new AppError("invalid_input", `${ns} has no action ${action.name}.`, { details: { action: action.name } });
      if (input.ref === null) throw new AppError("invalid_input", `${action.name} needs the ref of a ${action.target_kind ?? `${ns} object`}.`, { details: { action: action.name } });
      if (action.target_kind) refs.idOf(input.ref, byKind(action.target_kind).segment);
      return handler.run(c, input.ref, parseWith(handler.payload, input.payload, "payload"));
    },
    async upsert(c, input) {
      const { segment, k } = byKind(input.kind);
      if (input.ref !== null) refs.idOf(input.ref, segment);
      const schema = input.ref === null ? k.schemas?.create : k.schemas?.patch;
      const fields = schema ? () => parseWith(schema, input.fields, "fields") : () => input.fields;
      if (input.ref === null) {
        if (!k.create) return unsupported(input.kind, "object.upsert");
        return { ...(await k.create(c, fields())), created: true };
      }
      if (!k.patch) return unsupported(input.kind, "object.upsert");
      return { ref: input.ref, created: false, object: await k.patch(c, input.ref, fields()) };
    },
    async delete(c, input) {
      const { k } = byRef(input.ref);
      if (!k.delete || !k.load) return unsupported(refs.parse(input.ref).kind, "object.delete");
      await k.delete(c, await k.load(c, input.ref), input.ref);
      return { ref: input.ref, deleted: true };
    },
    async hostFile(c, input) {
      if (!spec.hostFile) throw new AppError("invalid_input", `${ns} does not support file.host`);
      return spec.hostFile(c, input);
    },
    async resolve(c, input): Promise<ResolveResult> {
      const { k } = byKind(input.kind);
      if (!k.resolve) return unsupported(input.kind, "selectors");
      const selector = k.schemas?.selector ? parseWith(k.schemas.selector, input.selector, "selector") : input.selector;
      const items = await k.resolve(c, selector);
      if (items.length === 0) throw noMatch(k.noun, input.selector);
      return items.length === 1 ? { ref: items[0]!.ref } : { choices: items.slice(0, MAX_CHOICES) };
    },
  };
  if (entries.some(([, k]) => k.lineage)) adapter.lineage = lineage;
  return adapter;
}
