"use client";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";

export default function SupportError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div className="space-y-3">
      <Alert tone="error" title="The support console could not be loaded">
        Something went wrong on our side{error.digest ? ` (reference ${error.digest})` : ""}. Try again in a moment.
      </Alert>
      <Button variant="secondary" onClick={reset}>
        Try again
      </Button>
    </div>
  );
}
