"use client";
import { PageError } from "@/components/ui/page-error";

export default function RealmsError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return <PageError title="The realms could not be loaded" error={error} reset={reset} />;
}
