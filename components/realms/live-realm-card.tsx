"use client";
// The realm page's card: the same query as the operation list beside it, so its counts (on for your agents,
// off by the owner, off by you) follow each saved switch without a reload.
import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { api } from "@/components/api-client";
import type { RealmDetailView } from "@/lib/views/realms";
import { realmKey } from "./operation-list";
import { RealmCard } from "./realm-card";

export function LiveRealmCard({ namespace, initial, descriptionControl }: { namespace: string; initial: RealmDetailView; descriptionControl?: ReactNode }) {
  const detail = useQuery({ queryKey: realmKey(namespace), queryFn: () => api<RealmDetailView>(`/api/v1/realms/${namespace}`), initialData: initial });
  return <RealmCard card={detail.data.card} onDetailPage descriptionControl={descriptionControl} />;
}
