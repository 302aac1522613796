// Key rotation for the token vault: re-seal every stored token set under the current key. A record is
// rewritten only if it still holds what was read (version check), so a token refreshed meanwhile is never
// overwritten; records that do not open are reported and left exactly as they were.
import { and, asc, eq, gt, isNotNull, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { connectedAccounts } from "@/db/schema";
import { keyring, rewrap, VaultError, type Keyring } from "./vault";

export type RotationReport = { current_kid: string; rewrapped: number; already_current: number; unreadable: { account_id: string; kid: string | null; reason: string }[] };

const BATCH = 200;

/** `only.tenantId`: re-seal one workspace's records and leave every other workspace's as it is (`--tenant`). */
export async function rotateVault(db: Db, ring: Keyring = keyring(), only: { tenantId?: string } = {}): Promise<RotationReport> {
  const report: RotationReport = { current_kid: ring.current.kid, rewrapped: 0, already_current: 0, unreadable: [] };
  let after = "";
  for (;;) {
    const rows = await db
      .select({ id: connectedAccounts.id, tenantId: connectedAccounts.tenantId, userId: connectedAccounts.userId, kid: connectedAccounts.secretKid, secret: connectedAccounts.secret, version: connectedAccounts.version })
      .from(connectedAccounts)
      .where(and(isNotNull(connectedAccounts.secret), gt(connectedAccounts.id, after), only.tenantId ? eq(connectedAccounts.tenantId, only.tenantId) : undefined))
      .orderBy(asc(connectedAccounts.id))
      .limit(BATCH);
    if (!rows.length) return report;
    after = rows[rows.length - 1]!.id;
    for (const row of rows) {
      let current = row;
      // A concurrent refresh changes the version: read again and re-seal what is there now.
      for (let attempt = 0; attempt < 3; attempt++) {
        const result = rewrapRow(current, ring);
        if (result === "unreadable" || result === "current") {
          if (result === "current") report.already_current++;
          break;
        }
        const [done] = await db
          .update(connectedAccounts)
          .set({ secretKid: result.kid, secret: result.data, version: sql`${connectedAccounts.version} + 1` })
          .where(and(eq(connectedAccounts.id, current.id), eq(connectedAccounts.tenantId, current.tenantId), eq(connectedAccounts.version, current.version)))
          .returning({ id: connectedAccounts.id });
        if (done) {
          report.rewrapped++;
          break;
        }
        const [again] = await db
          .select({ id: connectedAccounts.id, tenantId: connectedAccounts.tenantId, userId: connectedAccounts.userId, kid: connectedAccounts.secretKid, secret: connectedAccounts.secret, version: connectedAccounts.version })
          .from(connectedAccounts)
          .where(eq(connectedAccounts.id, current.id));
        if (!again?.secret) break;
        current = again;
      }
    }
  }

  function rewrapRow(row: { id: string; tenantId: string; userId: string; kid: string | null; secret: string | null }, r: Keyring) {
    try {
      const { sealed, changed } = rewrap({ kid: row.kid ?? "", data: row.secret ?? "" }, { tenantId: row.tenantId, userId: row.userId, accountId: row.id }, r);
      return changed ? sealed : ("current" as const);
    } catch (err) {
      if (!(err instanceof VaultError)) throw err;
      report.unreadable.push({ account_id: row.id, kid: row.kid, reason: err.message });
      return "unreadable" as const;
    }
  }
}
