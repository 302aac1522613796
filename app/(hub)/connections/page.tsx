import type { Metadata } from "next";
import { ConnectionsManager } from "@/components/connections/connections-manager";
import { PageHeader } from "@/components/ui/card";
import { requirePageUser } from "@/lib/auth/page-session";

export const metadata: Metadata = { title: "Connections" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function ConnectionsPage({ searchParams }: Props) {
  await requirePageUser("/connections");
  const sp = await searchParams;
  const one = (v: string | string[] | undefined) => (typeof v === "string" ? v : null);
  return (
    <>
      <PageHeader
        title="Connections"
        description="Your accounts at outside providers. Agents reach them only through the operations you grant, and only with the permissions each account holds."
      />
      <ConnectionsManager result={one(sp.connection)} error={one(sp.connection_error)} />
    </>
  );
}
