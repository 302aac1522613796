// Mail refs: `mail:gmail:<account_id>:<message|thread|label>:<id>`, and the kinds they name.
import { AppError } from "@/lib/errors";
import { invalidRef } from "@/lib/realms/refs";

export type RefType = "message" | "thread" | "label";
export const TYPE_OF: Record<string, RefType> = { "mail.message": "message", "mail.thread": "thread", "mail.label": "label" };

export const mailRef = (accountId: string, type: RefType, id: string) => `mail:gmail:${accountId}:${type}:${id}`;

export function parseMailRef(ref: string): { accountId: string; type: RefType; id: string } {
  const m = /^mail:gmail:(acc_[0-9a-z]{20}):(message|thread|label):([A-Za-z0-9_-]{1,128})$/.exec(ref);
  if (!m) throw invalidRef(ref, "expected mail:gmail:<account_id>:<message|thread|label>:<id>");
  return { accountId: m[1]!, type: m[2] as RefType, id: m[3]! };
}

/** The ref type of a manifest kind (`mail.message` when none is named); an unknown kind is invalid_input. */
export function kindOf(kind: string | null): RefType {
  if (kind === null) return "message";
  const t = Object.hasOwn(TYPE_OF, kind) ? TYPE_OF[kind] : undefined;
  if (!t) throw new AppError("invalid_input", `mail has no kind ${kind}.`, { details: { known_kinds: Object.keys(TYPE_OF) } });
  return t;
}
