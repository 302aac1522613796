// Shown while the remote providers page renders on the server.
import { Spinner } from "@/components/ui/spinner";

export default function Loading() {
  return <Spinner label="Loading remote providers…" />;
}
