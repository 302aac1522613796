// A native realm's manifest, with each kind's `schemas` filled from its kind module's zod: the manifest shows
// agents exactly what the adapter validates with, and manifestSchema refuses a manifest whose writable fields,
// filters or selectors say otherwise.
import type { z } from "zod";
import { manifestSchema, payloadSchema, type KindSchemas, type RealmManifest } from "@/lib/realms/contract";
import type { NativeKinds } from "./adapter";
import type { NativeRefs } from "./refs";

type RawKind = { name: string } & Record<string, unknown>;
type RawManifest = { kinds: RawKind[] } & Record<string, unknown>;

/** The JSON Schemas of a kind module's zod (what a caller may send, defaults not required). */
export function kindSchemas(schemas: { create?: z.ZodType; patch?: z.ZodType; filter?: z.ZodType; selector?: z.ZodType } | undefined): KindSchemas {
  const out: KindSchemas = {};
  for (const key of ["create", "patch", "filter", "selector"] as const) {
    const schema = schemas?.[key];
    if (schema) out[key] = payloadSchema(schema);
  }
  return out;
}

export function nativeManifest<S extends string>(raw: RawManifest, realm: { refs: NativeRefs<S>; kinds: NativeKinds<S> }): RealmManifest {
  const byName = new Map(Object.entries(realm.refs.segments).map(([s, d]) => [(d as { kind: string }).kind, realm.kinds[s as S]]));
  return manifestSchema.parse({
    ...raw,
    kinds: raw.kinds.map((k) => {
      const mod = byName.get(k.name);
      return mod ? { ...k, schemas: kindSchemas(mod.schemas) } : k;
    }),
  });
}
