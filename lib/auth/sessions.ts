// Server-side session state behind the JWT sessions: each sign-in gets a session id and the user's session
// version. Signing out puts the session id on a denylist (until the JWT would have expired anyway); "sign out of
// all devices" bumps the version. Every request checks both, so an old session cookie stops working everywhere.
import { eq, lt, sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { endedSessions, users } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";
import { newId } from "@/lib/ids";

/** How long a session lasts at most (the JWT's maxAge). */
export const SESSION_MAX_AGE_SECONDS = 12 * 60 * 60;

export const newSessionId = () => newId("ses");

export async function sessionVersionOf(db: Executor, userId: string): Promise<number | null> {
  const [u] = await db.select({ v: users.sessionVersion }).from(users).where(eq(users.id, userId));
  return u?.v ?? null;
}

/** Whether a session (its id and the version it was signed in under) is still live: one query. */
export async function sessionIsLive(db: Executor, s: { userId: string; sessionId: unknown; version: unknown }): Promise<boolean> {
  if (typeof s.sessionId !== "string" || typeof s.version !== "number") return false; // signed in before sessions were tracked
  const rows = await db.execute<{ v: number; ended: boolean }>(
    sql`select ${users.sessionVersion} as v, exists (select 1 from ${endedSessions} where ${endedSessions.sessionId} = ${s.sessionId}) as ended from ${users} where ${users.id} = ${s.userId}`,
  );
  const row = (rows as unknown as { rows: { v: number; ended: boolean }[] }).rows[0];
  return Boolean(row) && Number(row!.v) === s.version && !row!.ended;
}

/** Sign-out: this session ends now, on every device holding its cookie. */
export async function endSession(db: Executor, s: { userId: string; sessionId: unknown; expiresAt: Date }): Promise<void> {
  if (typeof s.sessionId !== "string") return;
  await db.delete(endedSessions).where(lt(endedSessions.expiresAt, new Date()));
  await db.insert(endedSessions).values({ sessionId: s.sessionId, userId: s.userId, expiresAt: s.expiresAt }).onConflictDoNothing();
}

/** "Sign out of all devices": every session of this user signed in before now ends. Audited in each workspace. */
export async function endAllSessions(db: Executor, who: { userId: string; tenantId: string; requestId: string }): Promise<void> {
  await db.update(users).set({ sessionVersion: sql`${users.sessionVersion} + 1` }).where(eq(users.id, who.userId));
  await recordAudit(db, { tenantId: who.tenantId, event: "sessions.ended", principal: { type: "user", userId: who.userId }, requestId: who.requestId, outcome: "ok", subjectId: who.userId });
}
