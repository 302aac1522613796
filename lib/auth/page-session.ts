// The signed-in person for server components: redirects to /signin when there is none.
import { redirect } from "next/navigation";
import { getDb } from "@/db/client";
import { contextForSessionUser } from "@/lib/authz/authenticate";
import type { UserContext } from "@/lib/authz/context";
import { describeUser } from "@/lib/authz/users";
import { newId } from "@/lib/ids";
import { auth } from "./next-auth";

export type PageUser = UserContext & { email: string | null; name: string | null; tenantName: string | null; tenantSlug: string | null };

export async function optionalPageUser(): Promise<PageUser | null> {
  const session = await auth();
  const userId = (session?.user as { id?: string } | undefined)?.id;
  if (!userId) return null;
  const db = await getDb();
  try {
    const ctx = await contextForSessionUser(db, userId, newId("req"));
    if (ctx.kind !== "user") return null;
    const d = await describeUser(db, ctx);
    return { ...ctx, email: d.user.email, name: d.user.name, tenantName: d.tenant.name, tenantSlug: d.tenant.slug };
  } catch {
    return null;
  }
}

export async function requirePageUser(returnTo: string): Promise<PageUser> {
  const user = await optionalPageUser();
  if (!user) redirect(`/signin?callbackUrl=${encodeURIComponent(returnTo)}`);
  return user;
}
