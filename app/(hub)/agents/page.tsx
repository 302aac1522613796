import type { Metadata } from "next";
import { getDb } from "@/db/client";
import { AgentsManager } from "@/components/agents/agents-manager";
import { CatalogBudget } from "@/components/agents/working-set";
import { Alert } from "@/components/ui/alert";
import { PageHeader } from "@/components/ui/card";
import { requirePageUser } from "@/lib/auth/page-session";
import { listApprovals, withTargets } from "@/lib/approvals/decide";
import { listActors } from "@/lib/authz/actors";
import { listConsentRequests } from "@/lib/authz/consent";
import { listGrants } from "@/lib/authz/grants";
import { mcpResourceUrl } from "@/lib/mcp/config";
import { clientConnections, grantableRealms, mcpSnippets, scopeNames, TOKEN_PLACEHOLDER } from "@/lib/views/agents";
import { operationWords } from "@/lib/views/realms";
import { readTenantSettings } from "@/lib/views/tenant-settings";

export const metadata: Metadata = { title: "Agents" };

export default async function AgentsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const sp = await searchParams;
  const focus = typeof sp.grant === "string" && /^[a-z]{3}_[A-Za-z0-9_-]{1,60}$/.test(sp.grant) ? sp.grant : null;
  const user = await requirePageUser(focus ? `/agents?grant=${focus}` : "/agents");
  const db = await getDb();
  const [calls, actors, grants, requests, connections, settings] = await Promise.all([
    user.role === "support" ? Promise.resolve([]) : listApprovals(db, user, { status: "pending" }),
    listActors(db, user),
    listGrants(db, user, { status: "all", scope: "mine" }),
    listConsentRequests(db, user, { status: "pending" }),
    clientConnections(db, user),
    readTenantSettings(db, user),
  ]);
  const [waitingCalls, words, names, grantable] = await Promise.all([
    withTargets(db, user, calls.slice(0, 20)),
    operationWords(db, user.tenantId, [...grants.map((g) => g.namespace), ...requests.map((r) => r.namespace)]),
    scopeNames(db, user, grants),
    user.role === "support" ? Promise.resolve([]) : grantableRealms(db, user),
  ]);
  const url = mcpResourceUrl();
  const focused = focus ? grants.find((g) => g.id === focus) : undefined;
  return (
    <>
      <PageHeader
        title="Agents"
        description="Agents, MCP clients and automations that act for you. Each can do only what you granted it — see it here, and take any of it back."
      />
      {focus && !focused ? (
        <div className="mb-4">
          <Alert tone="warning" title="That grant is not one of yours">
            The link names a grant you did not give. Ask the person who granted it to approve it again.
          </Alert>
        </div>
      ) : null}
      {focused && focused.status !== "live" ? (
        <div className="mb-4">
          <Alert tone="info" title={`A ${focused.status} grant was asked about`}>
            An agent was refused because this grant {focused.status === "revoked" ? "was revoked" : "expired"}. It is marked below with what, when and why; “Grant it again” restores the same
            operations and scope with a new expiry.
          </Alert>
        </div>
      ) : null}
      <AgentsManager
        initial={{ actors, grants, requests, words }}
        extras={{ approvals: waitingCalls, moreApprovals: Math.max(0, calls.length - 20), connections, scopeNames: names, grantable, mcp: { url, snippets: mcpSnippets(url), placeholder: TOKEN_PLACEHOLDER }, focusGrant: focused?.id ?? null }}
        me={{ id: user.userId, name: user.name ?? user.email ?? "you" }}
        canCreate={user.role !== "support"}
      />
      {user.role === "owner" ? (
        <div className="mt-8">
          <CatalogBudget initial={settings} />
        </div>
      ) : null}
    </>
  );
}
