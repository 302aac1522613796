// Gate two for native realms (the rule itself is lib/realms/acl.ts): loading one object and asserting the
// caller may read it, in one step, so no kind forgets the check.
import { assertDestroyable, assertReadable, canRead, canWrite, notFound, type AclFields } from "@/lib/realms/acl";
import type { RealmContext } from "@/lib/realms/contract";

export { assertDestroyable, assertReadable, canRead, canWrite, notFound, type AclFields };

/**
 * `(ctx, ref) → row` for one kind: the ref's id (of that kind, else invalid_ref), the row fetched with the call's
 * tenant, then not_found unless the caller may read it (`aclOf` gives the owner / shared-with the row inherits).
 */
export function readable<Row>(
  idOf: (ref: string) => string,
  select: (ctx: RealmContext, id: string) => Promise<Row | undefined>,
  aclOf: (row: Row) => AclFields,
): (ctx: RealmContext, ref: string) => Promise<Row> {
  return async (ctx, ref) => {
    const row = await select(ctx, idOf(ref));
    assertReadable(row && aclOf(row), ref, ctx.principal);
    return row!;
  };
}

/** Only the owner may destroy or re-share: realm_denied for anyone else. */
export function assertOwner(acl: AclFields, ref: string, ctx: RealmContext): void {
  assertDestroyable(acl, ref, ctx.principal);
}
