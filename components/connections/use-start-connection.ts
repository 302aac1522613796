"use client";
// Start an OAuth round trip: the API records the flow and answers the provider's URL, which the browser
// then visits. The person comes back through the callback to `return_to`.
import { useMutation } from "@tanstack/react-query";
import { api } from "@/components/api-client";

export type StartBody = {
  /** `narrow`: `claims` are the permissions to keep (one is being removed). */
  intent: "connect" | "upgrade" | "reconnect" | "narrow";
  provider?: string;
  account_id?: string;
  claims: string[];
  label?: string;
  return_to: string;
};

export function useStartConnection() {
  return useMutation({
    mutationFn: (body: StartBody) => api<{ authorization_url: string }>("/api/v1/connections/start", { method: "POST", body }),
    onSuccess: ({ authorization_url }) => window.location.assign(authorization_url),
  });
}

/** The current page as a return path, without the outcome parameters of an earlier round trip. */
export function currentPath(): string {
  const url = new URL(window.location.href);
  for (const k of ["connection", "connected_account", "connection_error"]) url.searchParams.delete(k);
  return `${url.pathname}${url.search}`;
}
