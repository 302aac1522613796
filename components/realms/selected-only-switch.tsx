"use client";
// The owner's per-realm setting "agents act only on operations they selected": an agent's object_action on an
// action it has not added to its working set (object_schema with materialize) is refused with
// operation_not_selected. Off by default.
import { RealmSettingSwitch } from "./realm-setting-switch";

export function SelectedOnlySwitch({ namespace, title, initial }: { namespace: string; title: string; initial: boolean }) {
  return (
    <RealmSettingSwitch
      namespace={namespace}
      field="selected_only"
      initial={initial}
      label="Agents act only on operations they selected"
      help="An agent must add an action to its working set before calling it."
      saved={(on) =>
        on ? `Saved: in ${title}, agents now act only on actions they added to their working set.` : `Saved: in ${title}, agents may call any action they are granted, selected or not.`
      }
    />
  );
}
