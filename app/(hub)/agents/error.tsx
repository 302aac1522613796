"use client";
import { PageError } from "@/components/ui/page-error";

export default function AgentsError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return <PageError title="Your agents could not be loaded" error={error} reset={reset} />;
}
