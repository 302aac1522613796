"use client";
// The question before a change, as a modal dialog (focus stays inside it, Escape cancels): a title naming the thing,
// what doing it means, and Cancel with the focus first (the confirm button, for a change that can be undone);
// closed, the focus goes back. A failure is said inside the
// dialog, so the person can try again or cancel. The confirm button is never disabled while it works, only marked
// so: a disabled button drops the focus, and the keyboard would be lost if the request fails.
import { useEffect, useId, useRef, type ReactNode } from "react";
import { Alert } from "./alert";
import { Button } from "./button";

export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  pendingLabel = confirmLabel,
  pending = false,
  error = null,
  errorTitle = "Not done",
  undoable = false,
  onConfirm,
  onCancel,
}: {
  title: ReactNode;
  /** What confirming does, in a few sentences. */
  children: ReactNode;
  confirmLabel: string;
  pendingLabel?: string;
  pending?: boolean;
  /** The change can be undone right after: the confirm button takes the focus first and is not styled as danger. */
  undoable?: boolean;
  error?: string | null;
  errorTitle?: string;
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
  // Closed either way, the focus goes back to what opened it (the dialog leaves the page, so the browser cannot give
  // it back by itself); a parent that wants it elsewhere after confirming moves it in its own effect, which runs after.
  useEffect(() => {
    const d = ref.current;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (d && !d.open) d.showModal();
    return () => {
      d?.close();
      if (opener?.isConnected) opener.focus();
    };
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
        {title}
      </h2>
      <div id={textId} className="mt-2 space-y-2 text-sm text-slate-700">
        {children}
      </div>
      {error ? (
        <div className="mt-3">
          <Alert tone="error" title={errorTitle}>
            {error}
          </Alert>
        </div>
      ) : null}
      <div className="mt-4 flex flex-wrap justify-end gap-2">
        <Button variant="secondary" autoFocus={!undoable} disabled={pending} onClick={cancel}>
          Cancel
        </Button>
        <Button
          variant={undoable ? "primary" : "danger"}
          autoFocus={undoable}
          aria-disabled={pending}
          className="aria-disabled:cursor-not-allowed aria-disabled:text-slate-400"
          onClick={() => pending || onConfirm()}
        >
          {pending ? pendingLabel : confirmLabel}
        </Button>
      </div>
    </dialog>
  );
}
