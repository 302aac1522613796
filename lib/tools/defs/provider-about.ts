import { z } from "zod";
import { wallAhead, wallsAhead, type WallView } from "@/lib/connections/walls";
import { env } from "@/lib/env";
import type { OperationKey } from "@/lib/realms/contract";
import { aboutRealm, aboutRoot } from "../describe";
import { defineTool, type RunCtx } from "../define";
import { namespace } from "../inputs";

const READS: OperationKey[] = ["object.list", "object.search", "object.get"];

/**
 * In a connected realm, the account wall every read would meet now (no account connected, one lacking the reading
 * permission, one to reconnect), read from the stored accounts of the person the caller acts for — so an agent
 * learns it from the description, not from its first calls.
 */
async function readWall(r: RunCtx<unknown>): Promise<WallView | null> {
  const m = r.manifest;
  if (!m.connection) return null;
  const grantable = await r.grantableHere();
  const read = READS.find((op) => grantable.has(op));
  if (!read) return null;
  const actor = r.auth.kind === "actor" ? { id: r.auth.actorId, name: r.auth.actorName } : null;
  const userId = r.auth.kind === "actor" ? r.auth.grantorId : r.auth.userId;
  const [wall] = await wallsAhead(r.ctx.tx, { tenantId: r.auth.tenantId, userId, manifest: m, operations: [read], parsed: [], selector: null, actor, appUrl: env().appUrl, returnTo: "/connections" });
  return wall ?? null;
}

const whose = (r: RunCtx<unknown>) => (r.auth.kind === "actor" ? "Your user" : "You");

function wallNote(r: RunCtx<unknown>, w: WallView): string {
  const who = whose(r);
  const state =
    w.reason === "connect_required" && !w.account
      ? `${who === "You" ? "have" : "has"} no connected ${w.api_label} account`
      : w.reason === "reconnect_required" || w.reason === "connect_required"
        ? `must reconnect ${w.account_label}`
        : `connected ${w.account_label} without ${w.missing.map((c) => `"${c.label}"`).join(" and ")}`;
  return `${who} ${state}: until then every call here answers needs_connected_account_consent. Send ${who === "You" ? "yourself" : "them"} account_wall.connection_hub_url to fix it, then call again.`;
}

export const providerAbout = defineTool({
  name: "provider_about",
  input: z.strictObject({ namespace: namespace.optional() }),
  description: "Start here: the realms you may use; with `namespace`, one realm's kinds, selectors, actions and the rules all tools follow.",
  annotations: { readOnlyHint: true },
  target: "namespace_or_all",
  operation: "provider.about",
  run: async (r) => {
    const about = aboutRealm(r.manifest, await r.allowedHere(), await r.grantableHere(), await r.askingHere());
    const wall = await readWall(r);
    return wall ? { ...about, account_wall: wallAhead(wall), account_note: wallNote(r, wall) } : about;
  },
  runAll: async (a) => aboutRoot(a.realms, a.allowed, a.grantable),
});
