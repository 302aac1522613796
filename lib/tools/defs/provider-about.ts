import { z } from "zod";
import type { Tx } from "@/db/client";
import type { AuthContext } from "@/lib/authz/context";
import { wallAhead, wallsAhead, type WallView } from "@/lib/connections/walls";
import { env } from "@/lib/env";
import type { OperationKey, RealmManifest } from "@/lib/realms/contract";
import { aboutRealm, aboutRoot } from "../describe";
import { defineTool } from "../define";
import { namespace } from "../inputs";

const READS: OperationKey[] = ["object.list", "object.search", "object.get"];

/**
 * In a connected realm, the account wall every read would meet now (no account connected, one lacking the reading
 * permission, one to reconnect), read from the stored accounts of the person the caller acts for — so an agent
 * learns it from the description, not from its first calls.
 */
async function readWall(tx: Tx, auth: AuthContext, m: RealmManifest, grantable: ReadonlySet<OperationKey>): Promise<WallView | null> {
  if (!m.connection) return null;
  const read = READS.find((op) => grantable.has(op));
  if (!read) return null;
  const actor = auth.kind === "actor" ? { id: auth.actorId, name: auth.actorName } : null;
  const userId = auth.kind === "actor" ? auth.grantorId : auth.userId;
  const [wall] = await wallsAhead(tx, { tenantId: auth.tenantId, userId, manifest: m, operations: [read], parsed: [], selector: null, actor, appUrl: env().appUrl, returnTo: "/connections" });
  return wall ?? null;
}

const whose = (auth: AuthContext) => (auth.kind === "actor" ? "Your user" : "You");

function wallNote(auth: AuthContext, w: WallView): string {
  const who = whose(auth);
  const state =
    w.reason === "connect_required" && !w.account
      ? `${who === "You" ? "have" : "has"} no connected ${w.api_label} account`
      : w.reason === "reconnect_required" || w.reason === "connect_required"
        ? `must reconnect ${w.account_label}`
        : `connected ${w.account_label} without ${w.missing.map((c) => `"${c.label}"`).join(" and ")}`;
  return `${who} ${state}: until then every call here answers needs_connected_account_consent. Send ${who === "You" ? "yourself" : "them"} account_wall.connection_hub_url to fix it, then call again.`;
}

/** Said under the realm list when a realm is marked with what stands in the way of reading it. */
export const REALM_STATUS_NOTE =
  "reads_need_grant: reading asks your user first (the call answers consent_required with a link); account_wall: your user must connect or fix an account first (provider_about(namespace) gives the link). Unmarked realms can be read now.";

export const providerAbout = defineTool({
  name: "provider_about",
  input: z.strictObject({ namespace: namespace.optional() }),
  description: "Start here: the realms you may use; with `namespace`, one realm's kinds, selectors, actions and the rules all tools follow.",
  annotations: { readOnlyHint: true },
  target: "namespace_or_all",
  operation: "provider.about",
  run: async (r) => {
    const grantable = await r.grantableHere();
    const about = aboutRealm(r.manifest, await r.allowedHere(), grantable, await r.askingHere());
    const wall = await readWall(r.ctx.tx, r.auth, r.manifest, grantable);
    return wall ? { ...about, account_wall: wallAhead(wall), account_note: wallNote(r.auth, wall) } : about;
  },
  runAll: async (a) => {
    const root = aboutRoot(a.realms, a.allowed, a.grantable);
    const byNs = new Map(a.realms.map((r) => [r.manifest.namespace, r.manifest]));
    // What stands in the way of reading each realm now, so the list alone says which can be used (one read per
    // connected realm, in the call's transaction, one after another).
    const realms: (typeof root.realms[number] & { reads_need_grant?: true; account_wall?: string })[] = [];
    for (const entry of root.realms) {
      const allowed = a.allowed.get(entry.namespace) ?? new Set<OperationKey>();
      const grantable = a.grantable.get(entry.namespace) ?? new Set<OperationKey>();
      const reads = READS.filter((op) => grantable.has(op));
      const needGrant = reads.length > 0 && !reads.some((op) => allowed.has(op));
      const wall = await readWall(a.tx, a.auth, byNs.get(entry.namespace)!, grantable);
      realms.push({ ...entry, ...(needGrant ? { reads_need_grant: true as const } : {}), ...(wall ? { account_wall: wall.reason } : {}) });
    }
    return { ...root, realms, ...(realms.some((r) => "reads_need_grant" in r || "account_wall" in r) ? { realm_status_note: REALM_STATUS_NOTE } : {}) };
  },
});
