"use client";
// The body of a route's error boundary: what failed, a reference to quote, and a way to try again.
import { Alert } from "./alert";
import { Button } from "./button";

export function PageError({ title, error, reset }: { title: string; error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div className="space-y-3">
      <Alert tone="error" title={title}>
        Something went wrong on our side{error.digest ? ` (reference ${error.digest})` : ""}. Try again in a moment.
      </Alert>
      <Button variant="secondary" onClick={reset}>
        Try again
      </Button>
    </div>
  );
}
