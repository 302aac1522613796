// One call as a person reads it before it runs: the realm's presenter with that person's authority, else the
// generic lines of its fields or payload. The consent page ("the request that asked for this") and the approval
// page (the exact call they approve) both show a call this way, so a person reads the same words on both.
import type { Executor, Tx } from "@/db/client";
import { AppError, isAppError } from "@/lib/errors";
import type { DeliveryPort, Realm, RealmContext } from "./contract";
import { genericPresentation, MAX_LINES, type PresentedRequest } from "./presenters";
import { settledWrites } from "./settled";

const noDelivery: DeliveryPort = {
  storeFile: () => Promise.reject(new AppError("forbidden", "presenting a request never stores files")),
  fileUrl: () => Promise.reject(new AppError("forbidden", "presenting a request never signs URLs")),
  deleteFile: () => Promise.reject(new AppError("forbidden", "presenting a request never deletes files")),
};

export type CallToPresent = {
  /** The realm, or null when it is gone (the generic lines still say what the call carries). */
  realm: Realm | null;
  operation: string;
  ref: string | null;
  input: Record<string, unknown>;
  /** Refs by the names the person reads them by (an item they cannot see already says so). */
  names: Record<string, string>;
};

export async function presentCallAs(
  db: Executor,
  who: { tenantId: string; userId: string; requestId?: string; appUrl: string },
  call: CallToPresent,
): Promise<PresentedRequest> {
  const title = call.realm?.manifest.service_card.operation_labels[call.operation] ?? call.operation;
  const generic = () => genericPresentation(title, call.input, call.names);
  const present = call.realm?.presentRequest;
  if (!present) return generic();
  const settled = settledWrites();
  const ctx = (tx: Tx): RealmContext => ({
    tx,
    tenantId: who.tenantId,
    principal: { type: "user", userId: who.userId },
    requestId: who.requestId ?? "present",
    now: new Date(),
    delivery: noDelivery,
    appUrl: who.appUrl,
    grantScope: null,
    gateRef: async () => {},
    settled: settled.add,
  });
  try {
    // In a savepoint of its own: a presenter's failed query must not abort the page's reads.
    const shown = await db.transaction((tx) => present(ctx(tx), { operation: call.operation, ref: call.ref, input: call.input }));
    return shown ? { title: shown.title, lines: shown.lines.slice(0, MAX_LINES + 1) } : generic();
  } catch (err) {
    // A realm that cannot say (a provider down): the generic lines still show what the call carries.
    if (!isAppError(err)) throw err;
    return generic();
  } finally {
    await settled.run(db);
  }
}
