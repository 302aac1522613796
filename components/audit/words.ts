// Audit events and outcomes in words a support person (or a user) reads without a manual.
import type { BadgeTone } from "@/components/ui/badge";
import type { TimelineStage } from "@/lib/views/timeline";

export const eventWords: Record<string, string> = {
  "tool.call": "Tool call",
  "actor.created": "Agent created",
  "actor.revoked": "Agent revoked",
  "token.issued": "Token issued",
  "token.revoked": "Token revoked",
  "grant.created": "Grant created",
  "grant.revoked": "Grant revoked",
  "ceiling.changed": "Workspace ceiling changed",
  "choice.changed": "Personal choice changed",
  "consent.requested": "Consent requested",
  "consent.approved": "Consent approved",
  "consent.denied": "Consent denied",
  "url.minted": "File link made",
  "url.redeemed": "File link used",
  "api_key.created": "API key created",
  "api_key.revoked": "API key revoked",
  "account.connected": "Account connected",
  "account.upgraded": "Account permissions raised",
  "account.reconnected": "Account reconnected",
  "account.disconnected": "Account disconnected",
  "account.needs_reconnect": "Account needs reconnecting",
  "realm.imported": "Realm imported",
  "realm.curated": "Realm curated",
  "support.viewed": "Support view",
  "audit.verified": "Audit chain verified",
  "audit.exported": "Audit exported",
};

export const eventLabel = (event: string) => eventWords[event] ?? event;

export const outcomeWords: Record<string, { label: string; tone: BadgeTone }> = {
  allow: { label: "Allowed", tone: "green" },
  deny: { label: "Denied", tone: "red" },
  ok: { label: "Done", tone: "slate" },
  error: { label: "Failed", tone: "amber" },
};

export const stageWords: Record<TimelineStage, { label: string; tone: BadgeTone }> = {
  requested: { label: "Asked", tone: "slate" },
  approved: { label: "Approved", tone: "green" },
  refused: { label: "Refused", tone: "red" },
  created: { label: "Created", tone: "green" },
  used: { label: "Used", tone: "blue" },
  denied: { label: "Denied", tone: "red" },
  failed: { label: "Failed", tone: "amber" },
  revoked: { label: "Revoked", tone: "red" },
  expired: { label: "Expired", tone: "amber" },
  other: { label: "Other", tone: "slate" },
};
