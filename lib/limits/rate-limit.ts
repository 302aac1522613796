// A fixed-window rate limiter kept in PostgreSQL, so every stateless app node counts against the same
// window. One upsert per check: the row is reset when a new window starts, otherwise incremented.
import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { rateLimitCounters } from "@/db/schema";
import { AppError } from "@/lib/errors";

export type Limit = { limit: number; windowSeconds: number };
export type LimitResult = { allowed: boolean; count: number; retryAfterSeconds: number };

export async function hitRateLimit(db: Executor, bucket: string, l: Limit, now = new Date(), weight = 1): Promise<LimitResult> {
  const windowMs = l.windowSeconds * 1000;
  const windowStart = new Date(Math.floor(now.getTime() / windowMs) * windowMs);
  // A node whose clock lags may name an older window: it then counts into the newer one instead of resetting it.
  const [row] = await db
    .insert(rateLimitCounters)
    .values({ bucket, windowStart, count: weight })
    .onConflictDoUpdate({
      target: rateLimitCounters.bucket,
      set: {
        count: sql`case when ${rateLimitCounters.windowStart} >= excluded.window_start then ${rateLimitCounters.count} + excluded.count else excluded.count end`,
        windowStart: sql`greatest(${rateLimitCounters.windowStart}, excluded.window_start)`,
      },
    })
    .returning({ count: rateLimitCounters.count, windowStart: rateLimitCounters.windowStart });
  const count = Number(row!.count);
  const windowEnd = row!.windowStart.getTime() + windowMs;
  return { allowed: count <= l.limit, count, retryAfterSeconds: Math.max(1, Math.ceil((windowEnd - now.getTime()) / 1000)) };
}

/** Count `weight` requests against `bucket`; over the limit, a 429 `rate_limited` with Retry-After. */
export async function enforceRateLimit(db: Executor, bucket: string, l: Limit, what: string, now = new Date(), weight = 1): Promise<void> {
  const r = await hitRateLimit(db, bucket, l, now, weight);
  if (r.allowed) return;
  throw new AppError("rate_limited", `Too many ${what}: at most ${l.limit} per ${l.windowSeconds} seconds. Retry after ${r.retryAfterSeconds} s.`, {
    headers: { "Retry-After": String(r.retryAfterSeconds) },
    details: { limit: l.limit, window_seconds: l.windowSeconds, retry_after_seconds: r.retryAfterSeconds },
  });
}

/** The bucket of one caller (an actor or a user) for tool calls, whichever transport they use. */
export const callerBucket = (principalId: string) => `calls:${principalId}`;
