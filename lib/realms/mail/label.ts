// The mail.label kind: an account's labels (system and the person's own), by name or id.
import { AppError } from "@/lib/errors";
import type { AccountSession } from "@/lib/connections/session";
import type { LeanItem } from "@/lib/realms/contract";
import { BASE, type GmailLabel } from "./gmail";
import { mailRef } from "./refs";

export async function labelsOf(s: AccountSession): Promise<GmailLabel[]> {
  return (await s.call<{ labels?: GmailLabel[] }>({ path: `${BASE}/labels` })).labels ?? [];
}

/** Label names → ids; an unknown name is invalid_input listing the names there are. */
export async function labelIds(s: AccountSession, names: string[]): Promise<string[]> {
  if (!names.length) return [];
  const labels = await labelsOf(s);
  return names.map((n) => {
    const l = labels.find((x) => x.name.toLowerCase() === n.toLowerCase() || x.id === n);
    if (!l) throw new AppError("invalid_input", `No label "${n.slice(0, 80)}" in ${s.account.label}.`, { details: { known_labels: labels.map((x) => x.name).slice(0, 100) } });
    return l.id;
  });
}

export const labelNames = (ids: string[], labels: GmailLabel[]) => ids.map((id) => labels.find((l) => l.id === id)?.name ?? id);

export function labelItem(accountId: string, l: GmailLabel): LeanItem {
  return { ref: mailRef(accountId, "label", l.id), kind: "mail.label", label: l.name, summary: l.type === "user" ? "your label" : "system label" };
}

export async function getLabel(s: AccountSession, id: string) {
  const l = await s.call<GmailLabel>({ path: `${BASE}/labels/${id}` });
  return { ref: mailRef(s.account.id, "label", l.id), kind: "mail.label", account: s.account.label, name: l.name, type: l.type === "user" ? "user" : "system", messages_total: l.messagesTotal ?? 0, messages_unread: l.messagesUnread ?? 0 };
}

/** A label by name: the one whose name is exactly it (any case), or the labels whose names contain it. */
export async function resolveLabel(s: AccountSession, name: string): Promise<{ ref: string } | { choices: LeanItem[] }> {
  const all = await labelsOf(s);
  const exact = all.filter((l) => l.name.toLowerCase() === name.toLowerCase());
  if (exact.length === 1) return { ref: mailRef(s.account.id, "label", exact[0]!.id) };
  return { choices: all.filter((l) => l.name.toLowerCase().includes(name.toLowerCase())).slice(0, 20).map((l) => labelItem(s.account.id, l)) };
}
