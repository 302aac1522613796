// What the /api/v1/remote-providers routes answer (lib/remote-admin/register.ts), as the page reads it.
import { ApiError } from "@/components/api-client";

import type { ProviderView } from "@/lib/remote-admin/register";
import type { Refreshed } from "@/lib/remote/refresh";

export type { ProviderView };

export type Registered = { provider: ProviderView; secret: string; tenant_id: string };
export type MintedToken = { token: string; expires_at: string; register_url: string };
export type Checked = Refreshed & { provider: ProviderView };

export const providersKey = ["remote-providers"] as const;

/** The manifest problems an invalid_input answer lists (details.problems), at most 50. */
export function problemsOf(err: unknown): string[] {
  const problems = err instanceof ApiError ? err.details.problems : undefined;
  return Array.isArray(problems) ? problems.filter((p): p is string => typeof p === "string").slice(0, 50) : [];
}

export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
