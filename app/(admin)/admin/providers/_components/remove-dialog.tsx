"use client";
// The question before removing a registration, as a modal dialog (focus stays inside it, Escape cancels): it
// names the provider and says what removal does. Cancel has the focus first — removal cannot be undone.
import { useEffect, useId, useRef } from "react";
import { Button } from "@/components/ui/button";
import type { ProviderView } from "./types";

export function RemoveDialog({ provider, pending, onConfirm, onCancel }: { provider: ProviderView; pending: boolean; onConfirm: () => void; onCancel: () => void }) {
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
      <h2 id={titleId} className="text-base font-semibold text-slate-900">
        Remove {provider.title}?
      </h2>
      <div id={textId} className="mt-2 space-y-2 text-sm text-slate-700">
        <p>
          The realm <code>{provider.namespace}</code> goes with it: agents lose it at once, and grants to it cover nothing from now on. Realmgate stops calling{" "}
          <span className="break-all">{provider.url}</span>.
        </p>
        <p>The audit keeps what happened. To use the provider again, register it again (it gets a new secret).</p>
      </div>
      <div className="mt-4 flex flex-wrap justify-end gap-2">
        <Button variant="secondary" autoFocus disabled={pending} onClick={cancel}>
          Cancel
        </Button>
        <Button variant="danger" disabled={pending} onClick={onConfirm}>
          {pending ? "Removing…" : `Yes, remove ${provider.title}`}
        </Button>
      </div>
    </dialog>
  );
}
