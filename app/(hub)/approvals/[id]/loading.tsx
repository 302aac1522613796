import { Spinner } from "@/components/ui/spinner";

export default function Loading() {
  return <Spinner label="Loading the call waiting for you…" />;
}
