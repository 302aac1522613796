// Start-up refuses a bad configuration with one line (and exit code 1) before it opens the database.
import { afterEach, describe, expect, it, vi } from "vitest";
import { envOverride } from "@/test-support";
import { startUp } from "./startup";

const envs = envOverride();

afterEach(() => {
  envs.restore();
  vi.restoreAllMocks();
});

/** Run start-up with process.exit and console.error caught: the lines it printed and the exit code. */
async function startWith(vars: Record<string, string | undefined>) {
  envs.set(vars);
  const printed: string[] = [];
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void printed.push(args.map(String).join(" ")));
  const exit = vi.spyOn(process, "exit").mockImplementation((() => undefined) as never);
  await startUp();
  return { printed, code: exit.mock.calls[0]?.[0] };
}

describe("startUp", () => {
  it("prints one line for a bad provider variable, with the prefix once", async () => {
    const { printed, code } = await startWith({ GOOGLE_CLIENT_ID: "id", GOOGLE_CLIENT_SECRET: undefined });
    expect(printed).toEqual(["Invalid configuration: GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET are required together"]);
    expect(code).toBe(1);
  });

  it("prints one line for a bad vault key (an error that is not a ConfigError gets the prefix)", async () => {
    const { printed, code } = await startWith({ REALMGATE_VAULT_KEYS: "nokid" });
    expect(printed).toHaveLength(1);
    expect(printed[0]).toMatch(/^Invalid configuration: REALMGATE_VAULT_KEYS entry 1 needs a key id/);
    expect(code).toBe(1);
  });
});
