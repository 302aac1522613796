// Refs of native realms: `<namespace>:<segment>:<prefix>_<id>`, one segment per kind, declared once per realm.
import { newRealmId } from "@/lib/ids";
import type { RealmContext } from "@/lib/realms/contract";
import { invalidRef, refCodec } from "@/lib/realms/refs";

export { invalidRef };

export type RefSegments<S extends string> = Record<S, { kind: string; idPrefix: string }>;

export type NativeRefs<S extends string> = {
  namespace: string;
  segments: RefSegments<S>;
  make(segment: S, id: string): string;
  /** A new row id for this segment's kind, with its declared prefix (`mem_…`). */
  newId(segment: S): string;
  /** Syntax only: `invalid_ref` for anything not `<namespace>:<segment>:<id>` of a known segment. */
  parse(ref: string): { segment: S; kind: string; id: string };
  /** The id in a ref of this segment; a ref of another kind is invalid_ref. */
  idOf(ref: string, segment: S): string;
  /** The id, or null when the ref is malformed (describeRefs and lineage name nothing for it). */
  tryParse(ref: string): { segment: S; id: string } | null;
  /**
   * Before linking to or acting on a ref the caller named inside a call (`fields.document`, `payload.column`): it
   * must be of this kind, and (with `where`) covered by the grant that let the call in (ctx.gateRef throws otherwise).
   */
  gate(ctx: RealmContext, ref: string, segment: S, where?: string): Promise<void>;
};

export function nativeRefs<S extends string>(namespace: string, segments: RefSegments<S>): NativeRefs<S> {
  const codec = refCodec<S>(namespace, segments);
  const idOf = (ref: string, segment: S) => {
    const parsed = codec.parse(ref);
    if (parsed.segment !== segment) throw invalidRef(ref, `expected a ${segments[segment].kind} ref (${namespace}:${segment}:…), not a ${parsed.kind}`);
    return parsed.id;
  };
  return {
    namespace,
    segments,
    make: codec.make,
    newId: (segment) => newRealmId(segments[segment].idPrefix),
    parse: codec.parse,
    idOf,
    async gate(ctx, ref, segment, where) {
      idOf(ref, segment);
      if (where) await ctx.gateRef(ref, where);
    },
    tryParse(ref) {
      try {
        const { segment, id } = codec.parse(ref);
        return { segment, id };
      } catch {
        return null;
      }
    },
  };
}
