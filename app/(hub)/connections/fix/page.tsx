import type { Metadata } from "next";
import Link from "next/link";
import { textProblem } from "@/lib/input/text";
import { getDb } from "@/db/client";
import { FixPanel } from "@/components/connections/fix-panel";
import { Alert } from "@/components/ui/alert";
import { PageHeader } from "@/components/ui/card";
import { requirePageUser } from "@/lib/auth/page-session";
import { fixView, type DescribeOperation } from "@/lib/views/connections";
import { findRealm } from "@/lib/realms/registry";

export const metadata: Metadata = { title: "Fix a connection" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

const titles = {
  connect_required: "Connect an account",
  claim_upgrade_required: "Allow a permission",
  reconnect_required: "Reconnect an account",
  account_required: "Choose or connect an account",
} as const;

export default async function FixConnectionPage({ searchParams }: Props) {
  // Parameters carrying a NUL or a lone surrogate are dropped: the link then reads as incomplete, never as a crash.
  const sp = Object.fromEntries(Object.entries(await searchParams).filter(([k, v]) => !textProblem(k) && (typeof v !== "string" || !textProblem(v))));
  const here = new URLSearchParams(Object.entries(sp).flatMap(([k, v]) => (typeof v === "string" ? [[k, v]] : [])));
  const user = await requirePageUser(`/connections/fix?${here.toString()}`);
  const db = await getDb();
  const describe: DescribeOperation = async (namespace, operation) => {
    const realm = await findRealm(db, user.tenantId, namespace);
    return realm ? { title: realm.manifest.service_card.title, operationLabel: Object.hasOwn(realm.manifest.service_card.operation_labels, operation) ? realm.manifest.service_card.operation_labels[operation]! : operation } : null;
  };
  const view = await fixView(db, user, sp, describe);
  const one = (v: string | string[] | undefined) => (typeof v === "string" ? v : null);
  if (!view) {
    return (
      <>
        <PageHeader title="This link is incomplete" />
        <Alert tone="warning" title="We could not tell what needs fixing">
          The link may have been cut short. Your accounts are on the{" "}
          <Link href="/connections" className="underline">
            Connections
          </Link>{" "}
          page.
        </Alert>
      </>
    );
  }
  return (
    <>
      <PageHeader title={titles[view.asked]} description="An agent's request met a wall that only you can open. Nothing changes until you confirm at the provider." />
      <div className="max-w-3xl">
        <FixPanel view={view} result={one(sp.connection)} error={one(sp.connection_error)} />
      </div>
    </>
  );
}
