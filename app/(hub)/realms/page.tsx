import type { Metadata } from "next";
import { getDb } from "@/db/client";
import { RealmPicker } from "@/components/realms/realm-picker";
import { PageHeader } from "@/components/ui/card";
import { requirePageUser } from "@/lib/auth/page-session";
import { realmCards } from "@/lib/views/realms";

export const metadata: Metadata = { title: "Realms" };

export default async function RealmsPage() {
  const user = await requirePageUser("/realms");
  const cards = await realmCards(await getDb(), user);
  return (
    <>
      <PageHeader
        title="Realms"
        description="The services agents can work in. Open one to see every operation in plain words and how risky it is, and to choose for each whether your agents may use it, must ask you each time, or may not use it at all."
      />
      <RealmPicker initial={cards} />
    </>
  );
}
