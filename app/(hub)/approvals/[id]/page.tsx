// The approval page: one call an agent wants to make, waiting for its grantor. Approving lets exactly that call
// run once; nothing else. Never framed (the global frame-ancestors 'none'); the decision is a CSRF-checked write.
import type { Metadata } from "next";
import Link from "next/link";
import { getDb } from "@/db/client";
import { ApprovalForm } from "@/components/approvals/approval-form";
import { Alert } from "@/components/ui/alert";
import { PageHeader } from "@/components/ui/card";
import { getApproval, type ApprovalDetail } from "@/lib/approvals/decide";
import { requirePageUser } from "@/lib/auth/page-session";
import { isAppError } from "@/lib/errors";

export const metadata: Metadata = { title: "Approve one call" };

type Props = { params: Promise<{ id: string }> };

export default async function ApprovalPage({ params }: Props) {
  const { id } = await params;
  const user = await requirePageUser(`/approvals/${encodeURIComponent(id)}`);
  let approval: ApprovalDetail;
  try {
    approval = await getApproval(await getDb(), user, id);
  } catch (err) {
    if (!isAppError(err) || err.code !== "not_found") throw err;
    return (
      <>
        <PageHeader title="Approval not found" />
        <Alert tone="warning" title="There is no such call for you to approve">
          It may be waiting for someone else, or the link is wrong. Calls waiting for you are listed on your{" "}
          <Link href="/" className="underline">
            home page
          </Link>
          .
        </Alert>
      </>
    );
  }
  return (
    <>
      <PageHeader
        title={approval.status === "pending" ? `Approve one call from ${approval.actor.name}?` : `One call from ${approval.actor.name}`}
        description={
          approval.status === "pending"
            ? `One call in ${approval.realm_title}, waiting for you. Approving lets exactly this call run once — nothing else, and nothing later.`
            : `One call in ${approval.realm_title} that ${approval.actor.name} asked you to approve. Where it stands is below.`
        }
      />
      <div className="max-w-3xl">
        <ApprovalForm approval={approval} />
      </div>
    </>
  );
}
