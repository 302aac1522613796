import type { Metadata } from "next";
import { PageHeader } from "@/components/ui/card";
import { requirePageUser } from "@/lib/auth/page-session";
import { ApiKeysManager } from "./_components/api-keys-manager";

export const metadata: Metadata = { title: "API keys" };

export default async function ApiKeysPage() {
  await requirePageUser("/settings/api-keys");
  return (
    <>
      <PageHeader
        title="API keys"
        description="Personal keys act as you on Realmgate's REST API. A key is shown once, when you create it; we keep only a hash."
      />
      <ApiKeysManager />
    </>
  );
}
