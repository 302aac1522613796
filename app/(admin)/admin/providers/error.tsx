"use client";
// The remote providers page's error boundary.
import { PageError } from "@/components/ui/page-error";

export default function ProvidersError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return <PageError title="The remote providers could not be loaded" error={error} reset={reset} />;
}
