// /oauth/authorize — the OAuth authorization endpoint: a signed-in person sees which app asks, chooses the
// realms, operations and expiry it gets, and approves or denies. Never framed (global frame-ancestors 'none');
// the form posts to a same-origin, Origin-checked handler with a consent request signed for this person.
import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { GroupedPicker } from "@/components/operations/grouped-picker";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, PageHeader } from "@/components/ui/card";
import { getDb } from "@/db/client";
import { requirePageUser } from "@/lib/auth/page-session";
import { expiryChoices } from "@/lib/authz/grants";
import { checkAuthorizationFor, consentOffer, SUPPORT_CANNOT_CONNECT } from "@/lib/mcp/oauth";
import { signConsentRequest } from "@/lib/mcp/tokens";
import { consentPicker } from "@/lib/views/agents";

export const metadata: Metadata = { title: "Connect an app" };

type SearchParams = Record<string, string | string[] | undefined>;

const notices: Record<string, string> = {
  empty: "Choose at least one operation, or deny the request.",
  expired: "That consent form expired or was not yours. Start the connection again from your app.",
  forbidden: SUPPORT_CANNOT_CONNECT,
};

const expiryLabels: Record<(typeof expiryChoices)[number], string> = { "1h": "1 hour", "1d": "1 day", "30d": "30 days", never: "Until I revoke it" };

function queryOf(sp: SearchParams): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(sp)) {
    if (k === "notice" || v === undefined) continue;
    for (const item of Array.isArray(v) ? v : [v]) q.append(k, item);
  }
  return q.toString();
}

function describeClientId(clientId: string): string {
  if (clientId.startsWith("cli_")) return "registered itself with Realmgate automatically; Realmgate has not verified who made it";
  const u = new URL(clientId);
  return `is identified by ${u.host}${u.pathname}`;
}

function Problem({ title, message }: { title: string; message: string }) {
  return (
    <>
      <PageHeader title={title} />
      <Alert tone="error" title="Nothing was shared">
        {message}
      </Alert>
    </>
  );
}

export default async function AuthorizePage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const sp = await searchParams;
  const query = queryOf(sp);
  const user = await requirePageUser(`/oauth/authorize${query ? `?${query}` : ""}`);
  const notice = typeof sp.notice === "string" ? (notices[sp.notice] ?? "That did not work. Check your choices and try again.") : null;
  if (!query && notice) return <Problem title="This connection request has ended" message={notice} />;

  const db = await getDb();
  const check = await checkAuthorizationFor(db, user, sp, query);
  if (!check.ok) {
    if ("redirect" in check) redirect(check.redirect);
    return <Problem title={check.show.title} message={check.show.message} />;
  }
  const { request, client } = check;
  const offer = await consentOffer(db, user, request.scopes, request.client_id);
  const picker = await consentPicker(db, user.tenantId, offer);
  const signed = await signConsentRequest(request, user.userId);
  const redirectHost = new URL(request.redirect_uri).host || request.redirect_uri.split(":")[0];

  return (
    <>
      <PageHeader
        title={`Connect ${client.name}`}
        description={`${client.name} asks to work in Realmgate for you, ${user.name ?? user.email ?? "you"}, in ${user.tenantName ?? "your workspace"}`.replace(/\.?$/, ".")}
      />
      <div className="flex max-w-3xl flex-col gap-4">
        {notice ? <Alert tone="error">{notice}</Alert> : null}
        {offer.existingActorId ? (
          <Alert tone="info" title={`You connected ${client.name} before`}>
            It keeps the {offer.approvedCount} operation{offer.approvedCount === 1 ? "" : "s"} you already approved (marked “already approved” in each area); tick only what you want to add. The
            connection stays one agent on your Agents page.
          </Alert>
        ) : null}
        <Card>
          <h2 className="text-base font-semibold">Who is asking</h2>
          <p className="mt-2 text-sm text-slate-700">
            <strong>{client.name}</strong> {describeClientId(client.clientId)}. After you decide, you return to <strong>{redirectHost}</strong>.
          </p>
          <p className="mt-2 text-sm text-slate-700">
            It will act as its own agent — never as you — and only with the operations you tick. You can revoke it at any time; it is cut off at its next
            request.
          </p>
        </Card>
        <form method="post" action="/api/oauth/authorize" className="flex flex-col gap-4">
          <input type="hidden" name="request" value={signed} />
          {offer.realms.length === 0 ? (
            <Alert tone="warning" title="Nothing to approve">
              Your workspace or your own choices allow agents no operations that this app asked for.
            </Alert>
          ) : (
            <Card>
              <h2 className="text-base font-semibold">What it may do</h2>
              <p className="mt-1 mb-3 text-sm text-slate-600">
                Operations are grouped by service and area; open an area to see and change each one. What is ticked now is what Realmgate suggests.
              </p>
              <GroupedPicker realms={picker} name="op" label={`Operations for ${client.name}`} />
            </Card>
          )}
          {offer.unavailable > 0 ? (
            <p className="text-sm text-slate-600">{offer.unavailable} operations are turned off for agents by your workspace or your own choices, so they are not offered.</p>
          ) : null}
          {!offer.writeOffered ? <p className="text-sm text-slate-600">This app asked only to read, so nothing that changes data is offered.</p> : null}
          <Card>
            <fieldset>
              <legend className="text-base font-semibold">Access ends after</legend>
              <div className="mt-2 flex flex-wrap gap-4">
                {expiryChoices.map((e) => (
                  <label key={e} className="flex items-center gap-2 text-sm">
                    <input type="radio" name="expires" value={e} defaultChecked={e === "1d"} className="h-4 w-4" />
                    {expiryLabels[e]}
                  </label>
                ))}
              </div>
            </fieldset>
          </Card>
          <div className="flex flex-wrap gap-3">
            {offer.realms.length > 0 ? (
              <Button type="submit" name="decision" value="approve">
                Approve
              </Button>
            ) : null}
            <Button type="submit" name="decision" value="deny" variant="secondary">
              Deny
            </Button>
          </div>
        </form>
      </div>
    </>
  );
}
