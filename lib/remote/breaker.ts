// The circuit breaker of remote providers, per registration and app node: 5 consecutive failures (unreachable,
// timeout, 5xx, bad answers) open it; while open, calls fail at once (`provider_unavailable`, `circuit_open`);
// after the open period one call is let through (half-open) and its outcome closes or re-opens it. In memory on
// purpose: each node protects itself, and a restart starts closed. Transitions are returned so the caller can
// audit them (docs/provider-protocol.md).

import { env } from "@/lib/env";

export const FAILURES_TO_OPEN = 5;

/** How long the breaker stays open (REALMGATE_REMOTE_BREAKER_MS, default 30 s; tests shorten it). */
export function openMs(): number {
  return env().REALMGATE_REMOTE_BREAKER_MS;
}

type State = { failures: number; openedAt: number | null; probing: boolean };
const states = new Map<string, State>();

export type Admission = { ok: true } | { ok: false; retryAfterSeconds: number };
export type Transition = "opened" | "closed" | null;

export function admit(id: string, now = Date.now()): Admission {
  const s = states.get(id);
  if (!s || s.openedAt === null) return { ok: true };
  const left = s.openedAt + openMs() - now;
  if (left > 0) return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(left / 1000)) };
  // Half-open: one probe at a time.
  if (s.probing) return { ok: false, retryAfterSeconds: 1 };
  s.probing = true;
  return { ok: true };
}

/** Record a call's outcome; returns the transition it caused. */
export function record(id: string, ok: boolean, now = Date.now()): Transition {
  const s = states.get(id) ?? { failures: 0, openedAt: null, probing: false };
  states.set(id, s);
  const wasOpen = s.openedAt !== null;
  s.probing = false;
  if (ok) {
    s.failures = 0;
    s.openedAt = null;
    if (states.size > 10_000) states.delete(id);
    return wasOpen ? "closed" : null;
  }
  s.failures += 1;
  if (wasOpen) {
    s.openedAt = now; // the probe failed: open again for a full period (already audited as open)
    return null;
  }
  if (s.failures >= FAILURES_TO_OPEN) {
    s.openedAt = now;
    return "opened";
  }
  return null;
}

export function breakerState(id: string): "closed" | "open" {
  return states.get(id)?.openedAt != null ? "open" : "closed";
}

/** Tests: forget every breaker. */
export function resetBreakers(): void {
  states.clear();
}
