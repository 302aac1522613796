import type { Metadata } from "next";
import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import { PageHeader } from "@/components/ui/card";
import { requirePageUser } from "@/lib/auth/page-session";
import { OperationCurator } from "./_components/operation-curator";

type Props = { params: Promise<{ namespace: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Curate ${(await params).namespace}` };
}

export default async function CuratePage({ params }: Props) {
  const { namespace } = await params;
  const user = await requirePageUser(`/admin/imports/${namespace}`);
  return (
    <>
      <nav aria-label="Breadcrumb" className="mb-4 text-sm">
        <Link href="/admin/imports" className="text-brand-700 underline">
          Imported services
        </Link>{" "}
        <span aria-hidden="true">/</span> <span aria-current="page">{namespace}</span>
      </nav>
      <PageHeader
        title={`Curate ${namespace}`}
        description="Hide operations agents should never see, give them clearer labels and search keywords, raise their risk, or mark them so only an exact grant covers them. Changes reach agents on their next call."
      />
      {user.role === "owner" ? <OperationCurator namespace={namespace} /> : <Alert tone="warning" title="Only a tenant owner curates services" />}
    </>
  );
}
