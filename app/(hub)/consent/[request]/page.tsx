import type { Metadata } from "next";
import Link from "next/link";
import { getDb } from "@/db/client";
import { ConsentForm } from "@/components/consent/consent-form";
import { Alert } from "@/components/ui/alert";
import { PageHeader } from "@/components/ui/card";
import { requirePageUser } from "@/lib/auth/page-session";
import { getConsentRequest, namedRefsOf, type ConsentRequestView } from "@/lib/authz/consent";
import { isAppError } from "@/lib/errors";
import { textProblem } from "@/lib/input/text";
import { consentCompanions, consentPageQuery, consentPath, consentWalls, presentedCall } from "@/lib/views/consent";
import { realmDetail, type RealmDetailView } from "@/lib/views/realms";

export const metadata: Metadata = { title: "Approve an agent's request" };

type Props = { params: Promise<{ request: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function ConsentPage({ params, searchParams }: Props) {
  const { request: id } = await params;
  // Parameters carrying a NUL or a lone surrogate are dropped, like the fix page does.
  const sp = Object.fromEntries(Object.entries(await searchParams).flatMap(([k, v]) => (typeof v === "string" && !textProblem(k) && !textProblem(v) ? [[k, v]] : [])));
  const parsedHints = consentPageQuery.safeParse(sp);
  const hints = parsedHints.success ? parsedHints.data : {};
  const user = await requirePageUser(consentPath(id, hints));
  const db = await getDb();
  let request: ConsentRequestView;
  try {
    request = await getConsentRequest(db, user, id);
  } catch (err) {
    if (!isAppError(err) || err.code !== "not_found") throw err;
    return (
      <>
        <PageHeader title="Request not found" />
        <Alert tone="warning" title="There is no such request for you to decide">
          It may be addressed to someone else, or the link is wrong. Requests waiting for you are listed on the{" "}
          <Link href="/agents" className="underline">
            Agents
          </Link>{" "}
          page.
        </Alert>
      </>
    );
  }
  let detail: RealmDetailView | null = null;
  try {
    detail = await realmDetail(db, user, request.namespace);
  } catch (err) {
    if (!isAppError(err) || err.code !== "not_found") throw err;
  }
  const asked = new Set(request.operations);
  // The items the agent named, resolved with this person's own authority: names where they may see them.
  const items = await namedRefsOf(db, user, request);
  // What goes with the ask (offered, checked by default), and the connected-account walls still ahead of the call.
  const companions = request.status === "pending" ? await consentCompanions(db, user, request) : [];
  const walls = await consentWalls(db, user, request, hints);
  // The call that asked, as its realm presents it with this person's authority (only while it can still be decided).
  const presented = request.status === "pending" ? await presentedCall(db, user, request, items) : null;
  const byKey = new Map((detail?.operations ?? []).map((o) => [o.key as string, o]));
  return (
    <>
      <PageHeader
        title={`${request.actor.name} wants to use ${detail?.card.title ?? request.namespace}`}
        description="Approve only what you are comfortable with. You can revoke it at any time on the Agents page."
      />
      <div className="max-w-3xl">
        <ConsentForm
          request={request}
          items={items}
          realm={detail ? { title: detail.card.title, purpose: detail.card.purpose, touches: detail.card.touches } : { title: request.namespace, purpose: "This realm is no longer available.", touches: [] }}
          operations={detail ? detail.operations.filter((o) => asked.has(o.key)) : []}
          companions={companions.flatMap((c) => {
            const o = byKey.get(c.key);
            return o ? [{ operation: o, why: c.why }] : [];
          })}
          walls={walls}
          returnPath={consentPath(request.id, hints)}
          presented={presented}
          outcome={{ connection: typeof sp.connection === "string" ? sp.connection : null, error: typeof sp.connection_error === "string" ? sp.connection_error : null }}
        />
      </div>
    </>
  );
}
