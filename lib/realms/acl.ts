// The native realms' ACL (gate two): an object has an owner and a list of users it is shared with.
// The user checked is the call's *authority*: the user, or a delegated actor's grantor. An actor can
// never reach further than its grantor could.
import { AppError } from "@/lib/errors";
import { authorityOf, type Principal } from "./contract";

export type AclFields = { ownerId: string; sharedWith: string[] };

export const canRead = (obj: AclFields, p: Principal) => obj.ownerId === authorityOf(p) || obj.sharedWith.includes(authorityOf(p));
/** Shared users may edit (reply, move, label…); only the owner may destroy or re-share. */
export const canWrite = canRead;
export const canDestroy = (obj: AclFields, p: Principal) => obj.ownerId === authorityOf(p);

/** Objects the caller cannot read do not exist for them: `not_found`, same as a missing one. */
export function notFound(ref: string): AppError {
  return new AppError("not_found", `No object ${ref} (or you may not see it).`, { details: { ref } });
}

export function assertReadable(obj: AclFields | null | undefined, ref: string, p: Principal): asserts obj is AclFields {
  if (!obj || !canRead(obj, p)) throw notFound(ref);
}

export function assertDestroyable(obj: AclFields, ref: string, p: Principal): void {
  if (!canDestroy(obj, p)) {
    throw new AppError("realm_denied", `Only the owner of ${ref} may do this.`, {
      details: { ref, wall: "realm_acl", who_can_open: "the object's owner", retry_hint: "do_not_retry" },
    });
  }
}
