// What a person approved for a remote realm's action is what its manifest said it was: its label and description,
// the kind it runs on, and how risky it is. A new manifest that changes one of those, drops the action, or adds one
// (an "every action" grant was approved before it existed) changes that meaning: lib/authz/suspensions then
// suspends the action on every grant covering it, until the person approves again — so a provider can never widen
// what existing grants cover by publishing a new manifest, nor bring a dropped action back under its old approval.
import type { MeaningChange } from "@/lib/authz/suspensions";
import { actionOperationKey, type RealmManifest, type Risk } from "@/lib/realms/contract";

const RANK: Record<Risk, number> = { read: 0, write: 1, destructive: 2 };

export function manifestMeaningChanges(before: Pick<RealmManifest, "actions">, after: Pick<RealmManifest, "actions">): MeaningChange[] {
  const old = new Map(before.actions.map((a) => [a.name, a]));
  const now = new Set(after.actions.map((a) => a.name));
  const out: MeaningChange[] = [];
  for (const a of after.actions) {
    const o = old.get(a.name);
    if (!o) {
      out.push({ operation: actionOperationKey(a.name), change: `new action "${a.label}" (${a.risk})` });
      continue;
    }
    const parts: string[] = [];
    if (RANK[a.risk] > RANK[o.risk]) parts.push(`risk ${o.risk} → ${a.risk}`);
    if (o.target_kind !== a.target_kind) parts.push(`runs on ${o.target_kind ?? "the realm"} → ${a.target_kind ?? "the realm"}`);
    if (o.label !== a.label || o.description !== a.description) parts.push("what it says it does changed");
    if (parts.length) out.push({ operation: actionOperationKey(a.name), change: parts.join("; ") });
  }
  for (const o of before.actions) if (!now.has(o.name)) out.push({ operation: actionOperationKey(o.name), change: `removed by the provider (was "${o.label}")` });
  return out;
}
