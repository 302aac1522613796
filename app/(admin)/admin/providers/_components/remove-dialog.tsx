"use client";
// The question before removing a registration: it names the provider and says what removal does (it cannot be undone).
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import type { ProviderView } from "./types";

export function RemoveDialog({ provider, pending, onConfirm, onCancel }: { provider: ProviderView; pending: boolean; onConfirm: () => void; onCancel: () => void }) {
  return (
    <ConfirmDialog title={<>Remove {provider.title}?</>} confirmLabel={`Yes, remove ${provider.title}`} pendingLabel="Removing…" pending={pending} onConfirm={onConfirm} onCancel={onCancel}>
      <p>
        The realm <code>{provider.namespace}</code> goes with it: agents lose it at once, and grants to it cover nothing from now on. Realmgate stops calling{" "}
        <span className="break-all">{provider.url}</span>.
      </p>
      <p>The audit keeps what happened. To use the provider again, register it again (it gets a new secret).</p>
    </ConfirmDialog>
  );
}
