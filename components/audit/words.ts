// Audit events and outcomes in words a support person (or a user) reads without a manual.
import type { BadgeTone } from "@/components/ui/badge";
import type { TimelineStage } from "@/lib/views/timeline";
import { eventLabel, eventTable, outcomeWords } from "./event-words";

/** Event → its short name, from the full table of sentences and details (./event-words.ts). */
export const eventWords: Record<string, string> = Object.fromEntries(Object.entries(eventTable).map(([k, w]) => [k, w.label]));

export { eventLabel, outcomeWords };

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
  ran: { label: "Ran", tone: "blue" },
  voided: { label: "Voided", tone: "amber" },
  other: { label: "Other", tone: "slate" },
};
