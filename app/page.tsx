import Link from "next/link";
import { getDb } from "@/db/client";
import { SupportHome } from "@/components/audit/support-home";
import { PendingApprovals } from "@/components/approvals/pending-approvals";
import { PendingRequests } from "@/components/consent/pending-requests";
import { Card, PageHeader } from "@/components/ui/card";
import { requirePageUser } from "@/lib/auth/page-session";
import { auditDirectory } from "@/lib/audit/directory";
import { listApprovals, withTargets } from "@/lib/approvals/decide";
import { listActors } from "@/lib/authz/actors";
import { listConsentRequests } from "@/lib/authz/consent";
import { listGrants } from "@/lib/authz/grants";
import { operationWords, realmCards } from "@/lib/views/realms";

const linkClass = "mt-3 inline-flex min-h-10 items-center text-sm font-medium text-brand-700 underline";

export default async function HomePage() {
  const user = await requirePageUser("/");
  const db = await getDb();
  // Support staff read and never create: their home is their review work, not agents to create.
  if (user.role === "support") {
    return <SupportHome name={user.name} tenantName={user.tenantName} email={user.email} directory={await auditDirectory(db, user)} />;
  }
  const [calls, requests, actors, grants, realms] = await Promise.all([
    listApprovals(db, user, { status: "pending" }),
    listConsentRequests(db, user, { status: "pending" }),
    listActors(db, user),
    listGrants(db, user, { status: "live", scope: "mine" }),
    realmCards(db, user),
  ]);
  // The calls waiting soonest to lapse, their objects by the names this person reads them by.
  const waitingCalls = await withTargets(db, user, calls.slice(0, 20));
  const words = await operationWords(db, user.tenantId, requests.map((r) => r.namespace));
  const liveActors = actors.filter((a) => !a.revoked_at);
  const offByOwner = realms.reduce((n, r) => n + r.operations.off_by_owner, 0);
  const offByMe = realms.reduce((n, r) => n + r.operations.off_by_me, 0);
  const asking = realms.reduce((n, r) => n + r.operations.ask_for_my_agents, 0);
  return (
    <>
      <PageHeader
        title={`Welcome, ${user.name ?? user.email}`}
        description="Realmgate lets AI agents work across your tools, while you decide what each agent may do."
      />
      <section aria-labelledby="home-approvals" className="mb-6">
        <h2 id="home-approvals" className="mb-3 text-lg font-semibold">
          Calls waiting for your approval{calls.length ? ` (${calls.length})` : ""}
        </h2>
        <PendingApprovals approvals={waitingCalls} />
        {calls.length > 20 ? <p className="mt-3 text-sm text-slate-700">{calls.length - 20} more wait; those soonest to lapse are shown first.</p> : null}
      </section>
      <section aria-labelledby="home-requests" className="mb-6">
        <h2 id="home-requests" className="mb-3 text-lg font-semibold">
          Requests waiting for you{requests.length ? ` (${requests.length})` : ""}
        </h2>
        <PendingRequests requests={requests.slice(0, 5)} words={words} />
        {requests.length > 5 ? (
          <Link href="/agents" className={linkClass}>
            All {requests.length} requests
          </Link>
        ) : null}
      </section>
      <div className="grid gap-4 md:grid-cols-3">
        <Card>
          <h2 className="font-semibold">Your agents</h2>
          <p className="mt-2 text-sm text-slate-700">
            {liveActors.length === 0
              ? "No agents yet."
              : `${liveActors.length} active ${liveActors.length === 1 ? "agent" : "agents"} with ${grants.length} live ${grants.length === 1 ? "grant" : "grants"}.`}
          </p>
          <Link href="/agents" className={linkClass}>
            {liveActors.length === 0 ? "Create an agent" : "Review your agents"}
          </Link>
        </Card>
        <Card>
          <h2 className="font-semibold">Realms</h2>
          <p className="mt-2 text-sm text-slate-700">
            {realms.length === 0 ? "No realms in this workspace yet." : `${realms.length} ${realms.length === 1 ? "realm" : "realms"} agents can work in.`}
            {offByOwner ? ` ${offByOwner} operations are off for the whole workspace.` : ""}
            {offByMe ? ` You turned ${offByMe} off for your agents.` : ""}
            {asking ? ` ${asking} ${asking === 1 ? "asks" : "ask"} you before each call.` : ""}
          </p>
          <Link href="/realms" className={linkClass}>
            Choose what agents may do
          </Link>
        </Card>
        <Card>
          <h2 className="font-semibold">{user.role === "member" ? "Use the REST API" : "Support and audit"}</h2>
          <p className="mt-2 text-sm text-slate-700">
            {user.role === "member"
              ? "Create a personal API key and send it as a Bearer token."
              : "Search who was granted, used, refused and revoked what — and check the audit chain."}
          </p>
          <Link href={user.role === "member" ? "/settings/api-keys" : "/support"} className={linkClass}>
            {user.role === "member" ? "Manage API keys" : "Open the support console"}
          </Link>
        </Card>
      </div>
      <dl className="mt-6 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm text-slate-700">
        <dt className="text-slate-600">Workspace</dt>
        <dd>{user.tenantName}</dd>
        <dt className="text-slate-600">Role</dt>
        <dd>{user.role}</dd>
        <dt className="text-slate-600">Email</dt>
        <dd>{user.email}</dd>
      </dl>
    </>
  );
}
