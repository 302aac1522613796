// Gate one's denials as answers, never dead ends: which wall, who can open it, where, and whether to retry.
import { AppError } from "@/lib/errors";
import type { GrantDenial } from "./gate";

/** Where the grantor sees a revoked grant and can grant it again: `/agents?grant=<id>#grant-<id>`. */
export const revokedGrantUrl = (appUrl: string, grantId: string) => `${appUrl}/agents?grant=${encodeURIComponent(grantId)}#grant-${encodeURIComponent(grantId)}`;

type Denied = GrantDenial;

export function gateOneError(
  d: Denied,
  facts: {
    namespace: string;
    operation: string;
    ref: string | null;
    appUrl: string;
    actorName: string;
    grantorName: string;
    consentRequestId?: string;
    /** Refs the call named besides its target (covered by the same approval). */
    namedRefs?: { ref: string; where: string }[];
  },
): AppError {
  const base = { namespace: facts.namespace, operation: facts.operation, ref: facts.ref, gate: "one" };
  const realmUrl = `${facts.appUrl}/realms/${facts.namespace}`;
  switch (d.code) {
    case "operation_disabled":
      return d.wall === "owner_ceiling"
        ? new AppError("operation_disabled", `${facts.operation} on ${facts.namespace} is turned off for this workspace's agents by its owner.`, {
            details: {
              ...base,
              wall: "owner_ceiling",
              who_can_open: "a workspace owner",
              url: realmUrl,
              retry_hint: "do_not_retry_until_changed",
              instructions: `Ask a workspace owner to turn on "${facts.operation}" for ${facts.namespace} at ${realmUrl}.`,
            },
          })
        : new AppError("operation_disabled", `${facts.grantorName} has turned ${facts.operation} on ${facts.namespace} off for their agents.`, {
            details: {
              ...base,
              wall: "user_choice",
              who_can_open: facts.grantorName,
              url: realmUrl,
              retry_hint: "do_not_retry_until_changed",
              instructions: `Ask ${facts.grantorName} to turn on "${facts.operation}" for ${facts.namespace} at ${realmUrl}.`,
            },
          });
    case "operation_not_selected": {
      const hint = { namespace: facts.namespace, operation: facts.operation, materialize: true };
      return new AppError("operation_not_selected", `In ${facts.namespace}, agents act only on operations they selected: ${facts.operation} is not in ${facts.actorName}'s working set.`, {
        details: {
          ...base,
          wall: "working_set",
          who_can_open: `${facts.actorName} itself, by selecting it (or a workspace owner, by turning the rule off at ${realmUrl})`,
          url: realmUrl,
          materialize: { tool: "object_schema", arguments: hint },
          retry_hint: "retry_after_materialize",
          instructions: `Call object_schema(${JSON.stringify(hint)}), then call the exact tool it adds (or this same call again).`,
        },
      });
    }
    case "consent_required": {
      const url = `${facts.appUrl}/consent/${facts.consentRequestId}`;
      const why = d.suspended
        ? `${facts.actorName}'s grant for ${facts.operation} on ${facts.namespace} is suspended because the operation changed (${d.suspended.change}).`
        : d.outsideScope?.length
          ? `${facts.actorName}'s grant for ${facts.operation} on ${facts.namespace} does not reach ${d.outsideScope.slice(0, 3).join(", ")}.`
          : d.outsideScope
            ? `${facts.actorName}'s grant for ${facts.operation} on ${facts.namespace} reaches only some items, and this call names none of them.`
            : `${facts.actorName} has no grant for ${facts.operation} on ${facts.namespace}.`;
      return new AppError("consent_required", `${why} ${facts.grantorName} can approve it.`, {
        details: {
          ...base,
          ...(facts.namedRefs?.length ? { named_refs: facts.namedRefs } : {}),
          ...(d.outsideScope ? { outside_scope: d.outsideScope } : {}),
          ...(d.suspended ? { suspended: { grant_id: d.suspended.grantId, change: d.suspended.change } } : {}),
          wall: "grant",
          who_can_open: facts.grantorName,
          consent_request_id: facts.consentRequestId,
          connection_hub_url: url,
          retry_hint: "retry_after_approval",
          instructions: `Ask ${facts.grantorName} to approve "${facts.operation}" on ${facts.namespace} for ${facts.actorName} at ${url}, then retry the same call.`,
        },
      });
    }
    case "grant_expired":
    case "grant_revoked": {
      const word = d.code === "grant_expired" ? "expired" : "was revoked";
      // A revoked grant is approved again where it was revoked: the grant on the Agents page (what, when, by whom, why; one click to grant it again).
      const url =
        d.code === "grant_revoked" && d.grantId
          ? revokedGrantUrl(facts.appUrl, d.grantId)
          : facts.consentRequestId
            ? `${facts.appUrl}/consent/${facts.consentRequestId}`
            : `${facts.appUrl}/agents`;
      return new AppError(d.code, `${facts.actorName}'s grant for ${facts.operation} on ${facts.namespace} ${word}.`, {
        details: {
          ...base,
          wall: "grant",
          grant_id: d.grantId,
          who_can_open: facts.grantorName,
          consent_request_id: facts.consentRequestId,
          connection_hub_url: url,
          retry_hint: d.code === "grant_revoked" ? "do_not_retry_unless_approved_again" : "retry_after_approval",
          instructions: `Ask ${facts.grantorName} to approve "${facts.operation}" on ${facts.namespace} again at ${url}.`,
        },
      });
    }
  }
}
