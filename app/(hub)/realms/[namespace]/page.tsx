import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { getDb } from "@/db/client";
import { DescriptionSwitch } from "@/components/realms/description-switch";
import { OperationList } from "@/components/realms/operation-list";
import { LiveRealmCard } from "@/components/realms/live-realm-card";
import { SelectedOnlySwitch } from "@/components/realms/selected-only-switch";
import { requirePageUser } from "@/lib/auth/page-session";
import { isAppError } from "@/lib/errors";
import { realmDetail, type RealmDetailView } from "@/lib/views/realms";

type Props = { params: Promise<{ namespace: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Realm ${(await params).namespace}` };
}

export default async function RealmPage({ params, searchParams }: Props) {
  const { namespace } = await params;
  const q = (await searchParams).q;
  const user = await requirePageUser(`/realms/${namespace}`);
  let detail: RealmDetailView;
  try {
    detail = await realmDetail(await getDb(), user, namespace);
  } catch (err) {
    if (isAppError(err) && err.code === "not_found") notFound();
    throw err;
  }
  return (
    <>
      <nav aria-label="Breadcrumb" className="mb-4 text-sm">
        <Link href="/realms" className="text-brand-700 underline">
          Realms
        </Link>{" "}
        <span aria-hidden="true">/</span> <span aria-current="page">{detail.card.title}</span>
      </nav>
      <h1 className="mb-4 text-2xl font-semibold tracking-tight">What agents may do in {detail.card.title}</h1>
      <div className="grid gap-6 lg:grid-cols-[20rem_1fr]">
        <aside aria-label={`About ${detail.card.title}`} className="lg:self-start">
          <LiveRealmCard
            namespace={namespace}
            initial={detail}
            descriptionControl={
              detail.can_change.ceiling ? (
                <>
                  <DescriptionSwitch namespace={namespace} title={detail.card.title} initial={detail.card.open_description} />
                  <SelectedOnlySwitch namespace={namespace} title={detail.card.title} initial={detail.card.selected_only} />
                </>
              ) : undefined
            }
          />
        </aside>
        <section aria-label="Operations" className="min-w-0">
          <OperationList namespace={namespace} initial={detail} initialQuery={typeof q === "string" ? q : ""} />
        </section>
      </div>
    </>
  );
}
