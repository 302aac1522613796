// Users and their tenant membership: sign-in linking and the membership a request acts within.
import { and, asc, eq, sql } from "drizzle-orm";
import type { Db, Executor } from "@/db/client";
import { identities, memberships, tenants, users, type Role } from "@/db/schema";
import { newId } from "@/lib/ids";
import { verifyPassword } from "./secrets";

export type OidcProfile = { issuer: string; subject: string; email?: string | null; emailVerified?: boolean | null; name?: string | null };

/**
 * Resolve the user for an OpenID Connect sign-in. A known (issuer, subject) wins; otherwise a user with the
 * same *verified* email is linked; otherwise a new user gets a workspace of their own, as its owner.
 */
export async function userForOidcSignIn(db: Db, p: OidcProfile): Promise<string> {
  return db.transaction(async (tx) => {
    const [known] = await tx
      .select({ userId: identities.userId })
      .from(identities)
      .where(and(eq(identities.issuer, p.issuer), eq(identities.subject, p.subject)));
    if (known) return known.userId;

    const email = p.email?.trim().toLowerCase();
    if (email && p.emailVerified === true) {
      const [existing] = await tx.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = ${email}`);
      if (existing) {
        await tx.insert(identities).values({ issuer: p.issuer, subject: p.subject, userId: existing.id });
        return existing.id;
      }
    }

    const userId = newId("usr");
    const tenantId = newId("tnt");
    // An unverified email is never stored as the user's email: a later verified sign-in would link to it.
    const verifiedEmail = email && p.emailVerified === true ? email : null;
    const display = p.name?.trim() || verifiedEmail || `user ${p.subject}`;
    await tx.insert(users).values({ id: userId, email: verifiedEmail ?? `${userId}@unverified.invalid`, name: display });
    await tx.insert(tenants).values({ id: tenantId, slug: tenantId.replace("tnt_", "ws-"), name: `${display}'s workspace` });
    await tx.insert(memberships).values({ tenantId, userId, role: "owner" });
    await tx.insert(identities).values({ issuer: p.issuer, subject: p.subject, userId });
    return userId;
  });
}

/** The development sign-in: email + password, only for users that have a password (the demo users). */
export async function userForDevSignIn(db: Db, email: string, password: string): Promise<{ id: string; email: string; name: string } | null> {
  const [user] = await db.select().from(users).where(sql`lower(${users.email}) = ${email.trim().toLowerCase()}`);
  if (!user || !(await verifyPassword(password, user.passwordHash))) return null;
  return { id: user.id, email: user.email, name: user.name };
}

export type MembershipView = { tenantId: string; tenantSlug: string; tenantName: string; role: Role };

/** The membership a signed-in user acts within: their first, by join date. */
export async function primaryMembership(db: Executor, userId: string): Promise<MembershipView | null> {
  const [m] = await db
    .select({ tenantId: memberships.tenantId, tenantSlug: tenants.slug, tenantName: tenants.name, role: memberships.role })
    .from(memberships)
    .innerJoin(tenants, eq(tenants.id, memberships.tenantId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(memberships.createdAt), asc(memberships.tenantId))
    .limit(1);
  return m ?? null;
}

export async function membershipIn(db: Executor, tenantId: string, userId: string): Promise<Role | null> {
  const [m] = await db
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.userId, userId)));
  return m?.role ?? null;
}

export async function describeUser(db: Executor, who: { tenantId: string; userId: string; role: Role; via: string }) {
  const [u] = await db.select({ email: users.email, name: users.name }).from(users).where(eq(users.id, who.userId));
  const [t] = await db.select({ slug: tenants.slug, name: tenants.name }).from(tenants).where(eq(tenants.id, who.tenantId));
  return {
    user: { id: who.userId, email: u?.email ?? null, name: u?.name ?? null },
    tenant: { id: who.tenantId, slug: t?.slug ?? null, name: t?.name ?? null },
    role: who.role,
    authenticated_via: who.via,
  };
}
