// The checkpoint job's hook is one per process: set through one copy of the module (instrumentation.ts's, under
// `next start`) and fired through another (a route's), it still runs.
import { afterEach, expect, it, vi } from "vitest";
import { nudgeCheckpoints, onCheckpointNudge } from "./nudge";

afterEach(() => onCheckpointNudge(null));

it("a nudge from another copy of the module reaches the job's hook", async () => {
  const job = vi.fn();
  onCheckpointNudge(job);
  vi.resetModules();
  const routes = await import("./nudge");
  expect(routes.nudgeCheckpoints).not.toBe(nudgeCheckpoints);
  routes.nudgeCheckpoints();
  expect(job).toHaveBeenCalledTimes(1);
  routes.onCheckpointNudge(null);
  nudgeCheckpoints();
  expect(job).toHaveBeenCalledTimes(1);
});
