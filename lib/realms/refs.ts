// Refs: `<namespace>:<owner-defined rest>`. Only the owning realm parses the rest; this file only splits
// off the namespace and offers native realms a small codec for `<namespace>:<segment>:<id>` refs.
import { AppError } from "@/lib/errors";

const REF_MAX = 512;

export function invalidRef(ref: string, why: string): AppError {
  return new AppError("invalid_ref", `Malformed ref ${JSON.stringify(ref.slice(0, 80))}: ${why}.`, { details: { ref: ref.slice(0, REF_MAX) } });
}

/** The namespace of a ref; a ref without one is `invalid_ref`. */
export function namespaceOfRef(ref: string): string {
  if (ref.length > REF_MAX) throw invalidRef(ref, `longer than ${REF_MAX} characters`);
  const m = /^([a-z][a-z0-9_]{1,30}):[\x21-\x7e]+$/.exec(ref);
  if (!m) throw invalidRef(ref, "a ref is `<namespace>:<rest>` in printable ASCII");
  return m[1]!;
}

/**
 * For native realms: refs of the form `<namespace>:<segment>:<id>`, where segment names the kind.
 * `parse` throws `invalid_ref` for anything else, including a known namespace with an unknown segment.
 */
export function refCodec<S extends string>(namespace: string, segments: Record<S, { kind: string; idPrefix: string }>) {
  const bySegment = new Map(Object.entries(segments) as [S, { kind: string; idPrefix: string }][]);
  return {
    make(segment: S, id: string): string {
      return `${namespace}:${segment}:${id}`;
    },
    parse(ref: string): { segment: S; kind: string; id: string } {
      const parts = ref.split(":");
      if (parts.length !== 3 || parts[0] !== namespace) throw invalidRef(ref, `expected ${namespace}:<kind>:<id>`);
      const seg = bySegment.get(parts[1] as S);
      if (!seg) throw invalidRef(ref, `unknown kind segment "${parts[1]}" in ${namespace}`);
      if (!new RegExp(`^${seg.idPrefix}_[0-9a-z]{20}$`).test(parts[2]!)) throw invalidRef(ref, "malformed id");
      return { segment: parts[1] as S, kind: seg.kind, id: parts[2]! };
    },
  };
}
