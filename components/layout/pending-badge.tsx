"use client";
// The count of decisions waiting for the signed-in person (consent requests and single-call approvals), beside
// "Agents" in the navigation. The server
// gives the first count; it is read again on navigation and once a minute while the tab is open (no faster).
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { usePathname } from "next/navigation";
import { useEffect, useRef } from "react";
import { api } from "@/components/api-client";

export const PENDING_REFETCH_MS = 60_000;

export const pendingLabel = (n: number) => `${n} ${n === 1 ? "request" : "requests"} waiting for you`;

export function PendingBadge({ initial }: { initial: number }) {
  const client = useQueryClient();
  const pathname = usePathname();
  const first = useRef(true);
  const q = useQuery({
    queryKey: ["pending-requests-count"],
    queryFn: async () => {
      const [requests, calls] = await Promise.all([api<{ consent_requests: unknown[] }>("/api/v1/consent-requests?status=pending"), api<{ approvals: unknown[] }>("/api/v1/approvals?status=pending")]);
      return requests.consent_requests.length + calls.approvals.length;
    },
    initialData: initial,
    refetchInterval: PENDING_REFETCH_MS,
    refetchOnMount: false,
  });
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    void client.invalidateQueries({ queryKey: ["pending-requests-count"] });
  }, [pathname, client]);
  const n = q.data;
  if (!n) return null;
  return (
    <>
      <span aria-hidden="true" className="ml-1.5 inline-flex min-w-5 items-center justify-center rounded-full bg-red-700 px-1.5 text-xs font-semibold leading-5 text-white">
        {n > 99 ? "99+" : n}
      </span>
      <span className="sr-only"> ({pendingLabel(n)})</span>
    </>
  );
}
