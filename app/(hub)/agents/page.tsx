import type { Metadata } from "next";
import { getDb } from "@/db/client";
import { AgentsManager } from "@/components/agents/agents-manager";
import { PageHeader } from "@/components/ui/card";
import { requirePageUser } from "@/lib/auth/page-session";
import { listActors } from "@/lib/authz/actors";
import { listConsentRequests } from "@/lib/authz/consent";
import { listGrants } from "@/lib/authz/grants";
import { operationWords } from "@/lib/views/realms";

export const metadata: Metadata = { title: "Agents" };

export default async function AgentsPage() {
  const user = await requirePageUser("/agents");
  const db = await getDb();
  const [actors, grants, requests] = await Promise.all([
    listActors(db, user),
    listGrants(db, user, { status: "all", scope: "mine" }),
    listConsentRequests(db, user, { status: "pending" }),
  ]);
  const words = await operationWords(db, user.tenantId, [...grants.map((g) => g.namespace), ...requests.map((r) => r.namespace)]);
  return (
    <>
      <PageHeader
        title="Agents"
        description="Agents, MCP clients and automations that act for you. Each can do only what you granted it — see it here, and take any of it back."
      />
      <AgentsManager
        initial={{ actors, grants, requests, words }}
        me={{ id: user.userId, name: user.name ?? user.email ?? "you" }}
        canCreate={user.role !== "support"}
      />
    </>
  );
}
