// At most REALMGATE_REMOTE_MAX_IN_FLIGHT calls to one remote provider in flight per app node. A call to a provider
// waits inside the tool call's database transaction (gate one's FOR SHARE lock is held until the effect is done),
// so it holds one of the node's pooled connections while it waits: without a bound, a provider that is slow but
// answers within its timeout would tie up every connection and stall every other call of the node. Past the
// bound a call is refused at once with `provider_unavailable` (`reason: "busy"`, Retry-After 1), nothing is sent,
// and the breaker does not count it (the provider did not fail). In memory, per node, like the breaker.
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";

const inFlight = new Map<string, number>();

/** A slot for one call to the registration `id`; call the returned function once the call is over, however it ended. */
export function takeSlot(target: { id: string; namespace: string }, max = env().REALMGATE_REMOTE_MAX_IN_FLIGHT): () => void {
  const n = inFlight.get(target.id) ?? 0;
  if (n >= max) {
    throw new AppError("provider_unavailable", `The ${target.namespace} provider already has ${n} calls from Realmgate in flight, its most at once; Realmgate does not queue more. Retry in a moment.`, {
      status: 503,
      headers: { "Retry-After": "1" },
      details: { provider: target.namespace, reason: "busy", in_flight: n, retry_after_seconds: 1 },
    });
  }
  inFlight.set(target.id, n + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (inFlight.get(target.id) ?? 1) - 1;
    if (left <= 0) inFlight.delete(target.id);
    else inFlight.set(target.id, left);
  };
}

/** Calls in flight to the registration `id` on this node (tests check every slot comes back). */
export const callsInFlight = (id: string): number => inFlight.get(id) ?? 0;
