"use client";
// The question before revoking an API key, as a modal dialog (focus stays inside it, Escape cancels), in the
// shape of the providers' RemoveDialog: it names the key and says what revoking does. Cancel has the focus first —
// a revoke cannot be undone. A failure is said inside the dialog, so the person can try again or cancel.
import { useEffect, useId, useRef } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";

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
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const textId = useId();
  // Closed before the parent moves focus: while a modal dialog is open the rest of the page is inert.
  const cancel = () => {
    ref.current?.close();
    onCancel();
  };
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={textId}
      onCancel={(e) => {
        e.preventDefault();
        if (!pending) cancel();
      }}
      className="m-auto w-[min(30rem,calc(100vw-2rem))] rounded-lg border border-slate-200 bg-white p-5 text-slate-900 shadow-xl backdrop:bg-slate-900/40"
    >
      <h2 id={titleId} className="text-base font-semibold break-words text-slate-900">
        Revoke the key “{apiKey.name}”?
      </h2>
      <div id={textId} className="mt-2 space-y-2 text-sm text-slate-700">
        <p>
          Anything that uses the key starting <code className="font-mono">{apiKey.display_prefix}…</code> is refused from its next call.
        </p>
        <p>This cannot be undone: to use the API again from there, create a new key.</p>
      </div>
      {error ? (
        <div className="mt-3">
          <Alert tone="error" title="The key was not revoked">
            {error}
          </Alert>
        </div>
      ) : null}
      <div className="mt-4 flex flex-wrap justify-end gap-2">
        <Button variant="secondary" autoFocus disabled={pending} onClick={cancel}>
          Cancel
        </Button>
        {/* Not disabled while pending, only marked so: a disabled button drops the focus, and the keyboard would be lost
            if the revoke fails. */}
        <Button variant="danger" aria-disabled={pending} className="aria-disabled:cursor-not-allowed aria-disabled:text-slate-400" onClick={() => pending || onConfirm()}>
          {pending ? "Revoking…" : "Yes, revoke the key"}
        </Button>
      </div>
    </dialog>
  );
}
