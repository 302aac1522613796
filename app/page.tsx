import Link from "next/link";
import { Card, PageHeader } from "@/components/ui/card";
import { requirePageUser } from "@/lib/auth/page-session";

export default async function HomePage() {
  const user = await requirePageUser("/");
  return (
    <>
      <PageHeader
        title={`Welcome, ${user.name ?? user.email}`}
        description="Realmgate lets AI agents work across your tools through nine generic tools, while you decide what each agent may do."
      />
      <div className="grid gap-4 sm:grid-cols-2">
        <Card>
          <h2 className="font-semibold">Your workspace</h2>
          <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
            <dt className="text-slate-600">Workspace</dt>
            <dd>{user.tenantName}</dd>
            <dt className="text-slate-600">Role</dt>
            <dd>{user.role}</dd>
            <dt className="text-slate-600">Email</dt>
            <dd>{user.email}</dd>
          </dl>
        </Card>
        <Card>
          <h2 className="font-semibold">Use the REST API</h2>
          <p className="mt-2 text-sm text-slate-600">
            Create a personal API key and send it as <code className="rounded bg-slate-100 px-1">Authorization: Bearer …</code>.
          </p>
          <Link href="/settings/api-keys" className="mt-3 inline-block text-sm font-medium text-brand-700 underline">
            Manage API keys
          </Link>
        </Card>
      </div>
    </>
  );
}
