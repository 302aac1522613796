"use client";
// A revoke button that first asks why: the reason is kept with the revocation and shown to support staff.
import { useId, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/input";

export function RevokeWithReason({
  what,
  buttonLabel = "Revoke",
  onRevoke,
  pending,
  error,
}: {
  /** What is revoked, for labels: "the grant for Memory", "Helper bot". */
  what: string;
  buttonLabel?: string;
  onRevoke: (reason: string) => void;
  pending: boolean;
  error: string | null;
}) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState("");
  const id = useId();
  if (!open) {
    return (
      <Button variant="danger" onClick={() => setOpen(true)} aria-label={`${buttonLabel} ${what}`}>
        {buttonLabel}
      </Button>
    );
  }
  return (
    <form
      className="w-full space-y-2 rounded-md border border-red-200 bg-red-50/50 p-3 sm:max-w-md"
      onSubmit={(e) => {
        e.preventDefault();
        if (reason.trim()) onRevoke(reason.trim());
      }}
    >
      <Field id={`${id}-reason`} label={`Why revoke ${what}?`} hint="Kept with the revocation; support staff see it.">
        <Input id={`${id}-reason`} value={reason} onChange={(e) => setReason(e.target.value)} required maxLength={500} autoFocus aria-describedby={`${id}-reason-hint`} />
      </Field>
      {error ? <Alert tone="error" title="Not revoked">{error}</Alert> : null}
      <div className="flex flex-wrap gap-2">
        <Button type="submit" variant="danger" disabled={pending || !reason.trim()}>
          {pending ? "Revoking…" : `Confirm: ${buttonLabel.toLowerCase()}`}
        </Button>
        <Button type="button" variant="ghost" onClick={() => setOpen(false)}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
