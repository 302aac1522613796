"use client";
import { PageError } from "@/components/ui/page-error";

export default function ApprovalError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return <PageError title="This approval could not be loaded" error={error} reset={reset} />;
}
