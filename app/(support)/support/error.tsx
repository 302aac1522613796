"use client";
import { PageError } from "@/components/ui/page-error";

export default function SupportError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return <PageError title="The support console could not be loaded" error={error} reset={reset} />;
}
