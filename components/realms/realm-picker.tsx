"use client";
// The capability picker: service cards in a grid, filtered as you type by what a realm is and by the human
// labels of its operations ("send", "delete a card"). Cards arrive server-rendered; TanStack Query keeps them fresh.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useDeferredValue, useMemo, useState } from "react";
import { api } from "@/components/api-client";
import { Alert } from "@/components/ui/alert";
import { EmptyState } from "@/components/ui/empty-state";
import { Field, Input } from "@/components/ui/input";
import type { RealmCardView } from "@/lib/views/realms";
import { RealmCard } from "./realm-card";

const norm = (s: string) => s.toLowerCase().normalize("NFKD");

export function matchRealm(card: RealmCardView, query: string): { realm: boolean; operations: string[] } {
  const words = norm(query).split(/\s+/).filter(Boolean);
  if (words.length === 0) return { realm: true, operations: [] };
  const about = norm([card.title, card.namespace, card.purpose, card.works_with, ...card.touches, ...card.kinds.flatMap((k) => [k.label, k.one_liner])].join(" "));
  const realm = words.every((w) => about.includes(w));
  const operations = card.operation_labels.filter((l) => words.every((w) => norm(l).includes(w)));
  return { realm, operations };
}

export function RealmPicker({ initial }: { initial: RealmCardView[] }) {
  const realms = useQuery({ queryKey: ["realms"], queryFn: () => api<{ realms: RealmCardView[] }>("/api/v1/realms"), initialData: { realms: initial } });
  const [query, setQuery] = useState("");
  const deferred = useDeferredValue(query);
  const shown = useMemo(
    () =>
      (realms.data?.realms ?? [])
        .map((card) => ({ card, match: matchRealm(card, deferred) }))
        .filter(({ match }) => match.realm || match.operations.length > 0),
    [realms.data, deferred],
  );
  const all = realms.data?.realms ?? [];

  if (all.length === 0) {
    return (
      <EmptyState title="No realms in this workspace yet">
        Realms are the services agents can work in — memory, documents, boards, or an imported API. When one is added it
        appears here with what it does and what it touches.
      </EmptyState>
    );
  }

  return (
    <div className="space-y-4">
      <search className="block max-w-xl">
        <Field id="realm-search" label="Search realms and operations" hint="Try a service name or what you want an agent to do, like “delete” or “move a card”.">
          <Input id="realm-search" type="search" value={query} onChange={(e) => setQuery(e.target.value)} aria-describedby="realm-search-hint" autoComplete="off" />
        </Field>
      </search>
      {realms.isError ? <Alert tone="error" title="Could not refresh the realms">{realms.error.message}</Alert> : null}
      <p className="text-sm text-slate-600" aria-live="polite">
        {deferred ? `${shown.length} of ${all.length} realms match “${deferred}”.` : `${all.length} realms.`}
      </p>
      {shown.length === 0 ? (
        <EmptyState title="Nothing matches">No realm or operation matches “{deferred}”. Try fewer or other words.</EmptyState>
      ) : (
        <ul className="grid gap-4 md:grid-cols-2 xl:grid-cols-3">
          {shown.map(({ card, match }) => (
            <li key={card.namespace}>
              <RealmCard card={card}>
                {match.operations.length > 0 ? (
                  <div className="mt-3 rounded-md bg-slate-50 p-3 text-sm">
                    <p className="font-medium text-slate-900">Matching operations</p>
                    <ul className="mt-1 list-disc pl-5 text-slate-700">
                      {match.operations.slice(0, 5).map((l) => (
                        <li key={l}>{l}</li>
                      ))}
                    </ul>
                    {match.operations.length > 5 ? (
                      <Link className="mt-1 inline-block text-brand-700 underline" href={`/realms/${card.namespace}?q=${encodeURIComponent(deferred)}`}>
                        All {match.operations.length} matching operations in {card.title}
                      </Link>
                    ) : null}
                  </div>
                ) : null}
              </RealmCard>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
