"use client";
// The owner's per-realm setting "agents may read this realm's description without asking" (provider_about and
// object_schema without a grant).
import { RealmSettingSwitch } from "./realm-setting-switch";

export function DescriptionSwitch({ namespace, title, initial }: { namespace: string; title: string; initial: boolean }) {
  return (
    <RealmSettingSwitch
      namespace={namespace}
      field="open_description"
      initial={initial}
      label={<>Agents may read this realm&apos;s description without asking</>}
      help={<>Agents can learn what {title} is and what it offers before anyone approves anything. Doing anything in it still needs the approval of the person each agent acts for.</>}
      saved={(open) => (open ? `Saved: agents may read what ${title} offers without asking.` : `Saved: agents now ask before reading what ${title} offers.`)}
    />
  );
}
