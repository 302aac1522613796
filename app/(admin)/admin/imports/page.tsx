import type { Metadata } from "next";
import { Alert } from "@/components/ui/alert";
import { PageHeader } from "@/components/ui/card";
import { requirePageUser } from "@/lib/auth/page-session";
import { ImportManager } from "./_components/import-manager";

export const metadata: Metadata = { title: "Imported services" };

export default async function ImportsPage() {
  const user = await requirePageUser("/admin/imports");
  return (
    <>
      <PageHeader
        title="Imported services"
        description="Bring any service with an OpenAPI 3.0 or 3.1 document into Realmgate as a realm. Agents find its operations by capability search and read the exact contract only for the one they run; Realmgate builds and sends every request itself."
      />
      {user.role === "owner" ? <ImportManager /> : <Alert tone="warning" title="Only a tenant owner imports services">Ask an owner of your tenant to import or curate a service.</Alert>}
    </>
  );
}
