// The checkpoint job's hook is one per process: set through one copy of the module (instrumentation.ts's, under
// `next start`) and fired through another (a route's), it still runs.
import { afterEach, expect, it, vi } from "vitest";
import { secondCopyOf } from "@/test-support";
import { nudgeCheckpoints, onCheckpointNudge } from "./nudge";

afterEach(() => onCheckpointNudge(null));

it("a nudge from another copy of the module reaches the job's hook", async () => {
  const job = vi.fn();
  onCheckpointNudge(job);
  const routes = await secondCopyOf<typeof import("./nudge")>("@/lib/audit/nudge.ts");
  expect(routes.nudgeCheckpoints).not.toBe(nudgeCheckpoints);
  routes.nudgeCheckpoints();
  expect(job).toHaveBeenCalledTimes(1);
  routes.onCheckpointNudge(null);
  nudgeCheckpoints();
  expect(job).toHaveBeenCalledTimes(1);
});
