"use client";
// The question before revoking an API key: it names the key and says what revoking does (a revoke cannot be undone).
import { ConfirmDialog } from "@/components/ui/confirm-dialog";

export type RevokableKey = { id: string; name: string; display_prefix: string };

export function RevokeKeyDialog({
  apiKey,
  pending,
  error,
  onConfirm,
  onCancel,
}: {
  apiKey: RevokableKey;
  pending: boolean;
  error: string | null;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <ConfirmDialog
      title={<>Revoke the key “{apiKey.name}”?</>}
      confirmLabel="Yes, revoke the key"
      pendingLabel="Revoking…"
      pending={pending}
      error={error}
      errorTitle="The key was not revoked"
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      <p>
        Anything that uses the key starting <code className="font-mono">{apiKey.display_prefix}…</code> is refused from its next call.
      </p>
      <p>This cannot be undone: to use the API again from there, create a new key.</p>
    </ConfirmDialog>
  );
}
