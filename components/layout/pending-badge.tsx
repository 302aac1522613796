"use client";
// The count of consent requests waiting for the signed-in person, beside "Agents" in the navigation. The server
// gives the first count; it is read again on navigation and once a minute while the tab is open (no faster).
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { usePathname } from "next/navigation";
import { useEffect, useRef } from "react";
import { api } from "@/components/api-client";

export const PENDING_REFETCH_MS = 60_000;

export const pendingLabel = (n: number) => `${n} pending ${n === 1 ? "request" : "requests"}`;

export function PendingBadge({ initial }: { initial: number }) {
  const client = useQueryClient();
  const pathname = usePathname();
  const first = useRef(true);
  const q = useQuery({
    queryKey: ["pending-requests-count"],
    queryFn: async () => (await api<{ consent_requests: unknown[] }>("/api/v1/consent-requests?status=pending")).consent_requests.length,
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
