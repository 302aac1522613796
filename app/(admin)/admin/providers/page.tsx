// /admin/providers — remote providers: a team's own services Realmgate calls on agents' behalf (owners register,
// check and remove them; members are told who can). The REST routes under /api/v1/remote-providers do the work.
import type { Metadata } from "next";
import { Alert } from "@/components/ui/alert";
import { PageHeader } from "@/components/ui/card";
import { requirePageUser } from "@/lib/auth/page-session";
import { ProviderManager } from "./_components/provider-manager";

export const metadata: Metadata = { title: "Remote providers" };

export default async function ProvidersPage() {
  const user = await requirePageUser("/admin/providers");
  return (
    <>
      <PageHeader
        title="Remote providers"
        description={
          <>
            A provider is your team&apos;s own service, running on its own, that Realmgate calls on agents&apos; behalf. It keeps its own rules — who may see or change what —
            while Realmgate keeps consent, approvals and the audit of every call. Each provider appears as a realm.
          </>
        }
      />
      {user.role === "owner" ? (
        <ProviderManager />
      ) : (
        <Alert tone="warning" title="Only a workspace owner registers providers">
          Ask an owner of your workspace to register, check or remove a remote provider. Once registered, it appears under Realms like any other service.
        </Alert>
      )}
    </>
  );
}
