// /settings/account — who you are here, and "sign out of all devices": every session of yours, on every browser,
// ends at its next request (the server keeps a session version; see lib/auth/sessions.ts).
import type { Metadata } from "next";
import { Button } from "@/components/ui/button";
import { Card, PageHeader } from "@/components/ui/card";
import { getDb } from "@/db/client";
import { signOut } from "@/lib/auth/next-auth";
import { requirePageUser } from "@/lib/auth/page-session";
import { endAllSessions } from "@/lib/auth/sessions";
import { newId } from "@/lib/ids";

export const metadata: Metadata = { title: "Your account" };

export default async function AccountPage() {
  const user = await requirePageUser("/settings/account");
  return (
    <>
      <PageHeader title="Your account" description="Who you are in Realmgate, and where you are signed in." />
      <div className="flex max-w-3xl flex-col gap-4">
        <Card>
          <h2 className="text-base font-semibold">You</h2>
          <dl className="mt-2 grid grid-cols-[8rem_1fr] gap-y-1 text-sm">
            <dt className="text-slate-600">Name</dt>
            <dd>{user.name}</dd>
            <dt className="text-slate-600">Email</dt>
            <dd>{user.email}</dd>
            <dt className="text-slate-600">Workspace</dt>
            <dd>
              {user.tenantName} ({user.role})
            </dd>
          </dl>
        </Card>
        <Card>
          <h2 className="text-base font-semibold">Sessions</h2>
          <p className="mt-2 text-sm text-slate-700">
            Signing out ends this browser&apos;s session everywhere its cookie might be. If you signed in on a computer you no longer trust, sign out of all devices:
            every session of yours ends at its next request, this one included. Your agents and API keys are not affected — revoke those on the Agents and API keys
            pages.
          </p>
          <form
            className="mt-3"
            action={async () => {
              "use server";
              const me = await requirePageUser("/settings/account");
              await endAllSessions(await getDb(), { userId: me.userId, tenantId: me.tenantId, requestId: newId("req") });
              await signOut({ redirectTo: "/signin?notice=signed_out_everywhere" });
            }}
          >
            <Button type="submit" variant="danger">
              Sign out of all devices
            </Button>
          </form>
        </Card>
      </div>
    </>
  );
}
