// What a person approved for a remote realm's action is what its manifest said it was: its label, description and
// name for people, what it returns, accepts (payload schema, ref paths) and requires (claims), the kind it runs
// on, and how risky it is. A new manifest that changes one of those, drops the action, or adds one
// (an "every action" grant was approved before it existed) changes that meaning: lib/authz/suspensions then
// suspends the action on every grant covering it, until the person approves again — so a provider can never widen
// what existing grants cover by publishing a new manifest, nor bring a dropped action back under its old approval.
// A new kind does the same to the base operations it supports (a read grant would now read a new kind of thing).
import type { MeaningChange } from "@/lib/authz/suspensions";
import { canonicalJson } from "@/lib/canonical-json";
import { actionOperationKey, type OperationKey, type RealmManifest } from "@/lib/realms/contract";
import { riskRises } from "@/lib/realms/risk-rises";

export function manifestMeaningChanges(before: Pick<RealmManifest, "actions" | "kinds" | "service_card">, after: Pick<RealmManifest, "actions" | "kinds" | "service_card">): MeaningChange[] {
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
    if (riskRises(o.risk, a.risk)) parts.push(`risk ${o.risk} → ${a.risk}`);
    if (o.target_kind !== a.target_kind) parts.push(`runs on ${o.target_kind ?? "the realm"} → ${a.target_kind ?? "the realm"}`);
    if (o.label !== a.label || o.description !== a.description || o.returns !== a.returns) parts.push("what it says it does changed");
    if (canonicalJson(o.payload_schema) !== canonicalJson(a.payload_schema) || canonicalJson(o.ref_paths) !== canonicalJson(a.ref_paths)) parts.push("what it accepts changed");
    if (canonicalJson([...o.claims].sort()) !== canonicalJson([...a.claims].sort()) || Boolean(o.exact_grant_only) !== Boolean(a.exact_grant_only)) parts.push("what it requires changed");
    const key = actionOperationKey(a.name);
    if ((before.service_card.operation_labels[key] ?? "") !== (after.service_card.operation_labels[key] ?? "")) parts.push("its name for people changed");
    if (parts.length) out.push({ operation: actionOperationKey(a.name), change: parts.join("; ") });
  }
  for (const o of before.actions) if (!now.has(o.name)) out.push({ operation: actionOperationKey(o.name), change: `removed by the provider (was "${o.label}")` });
  // A new kind: the base operations it supports now reach things the person never saw when approving them.
  const hadKinds = new Set(before.kinds.map((k) => k.name));
  const reach = new Map<OperationKey, string[]>();
  for (const k of after.kinds) if (!hadKinds.has(k.name)) for (const op of k.operations) reach.set(op, [...(reach.get(op) ?? []), k.label]);
  for (const [op, labels] of reach) out.push({ operation: op, change: `now also reaches ${labels.join(", ")} (a new kind)` });
  // A base operation renamed for people (what the consent and approval pages showed) is a change of what was approved.
  const named = new Set(out.map((c) => c.operation));
  for (const [op, label] of Object.entries(after.service_card.operation_labels)) {
    if (op.startsWith("object.action.") || named.has(op as OperationKey)) continue;
    const was = before.service_card.operation_labels[op];
    if (was !== undefined && was !== label) out.push({ operation: op as OperationKey, change: `renamed for people: "${was}" → "${label}"` });
  }
  return out;
}
