"use client";
import { PageError } from "@/components/ui/page-error";

export default function ConsentError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return <PageError title="This request could not be loaded" error={error} reset={reset} />;
}
