"use client";
import { PageError } from "@/components/ui/page-error";

export default function ConnectionsError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return <PageError title="Your connections could not be loaded" error={error} reset={reset} />;
}
