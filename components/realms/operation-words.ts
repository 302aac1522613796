"use client";
// Human words for operation keys on pages that show grants and requests. The server hands over the words
// for the namespaces it saw; a namespace that shows up later (a new grant) is fetched once from its realm.
import { useQueries } from "@tanstack/react-query";
import { api } from "@/components/api-client";
import type { RealmDetailView } from "@/lib/views/realms";
import type { Words } from "./words";

export function useOperationWords(initial: Words, namespaces: string[]): Words {
  const missing = [...new Set(namespaces)].filter((ns) => !initial[ns]);
  const fetched = useQueries({
    queries: missing.map((ns) => ({
      queryKey: ["realm", ns],
      queryFn: () => api<RealmDetailView>(`/api/v1/realms/${ns}`),
      staleTime: 60_000,
      retry: false,
    })),
  });
  const out: Words = { ...initial };
  fetched.forEach((q, i) => {
    if (!q.data) return;
    out[missing[i]!] = {
      title: q.data.card.title,
      operations: Object.fromEntries(q.data.operations.map((o) => [o.key, { label: o.label, risk: o.risk }])),
    };
  });
  return out;
}
