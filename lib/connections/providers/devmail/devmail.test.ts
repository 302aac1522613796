// devmail's folder: its own environment (all four variables together, URLs checked), discovery, Gmail's dialect.
import { describe, expect, it } from "vitest";
import { ConfigError } from "@/lib/env";
import { classifyGoogleApi } from "../google/gmail";
import { devmail } from ".";

const full = {
  REALMGATE_DEVMAIL_ISSUER: "http://127.0.0.1:9001/",
  REALMGATE_DEVMAIL_CLIENT_ID: "realmgate-devmail",
  REALMGATE_DEVMAIL_CLIENT_SECRET: "s3cret",
  REALMGATE_DEVMAIL_API_URL: "http://127.0.0.1:9002/",
};

describe("devmail", () => {
  it("is configured by its four variables together, trailing slashes trimmed, with a default name", () => {
    expect(devmail.fromEnv({})).toBeNull();
    expect(devmail.fromEnv(full)).toMatchObject({
      id: "devmail",
      label: "Development mail",
      api: "gmail",
      issuer: "http://127.0.0.1:9001",
      apiBaseUrl: "http://127.0.0.1:9002",
      endpoints: "discover",
      tokenAuthMethod: "client_secret_basic",
      identity: { kind: "id_token" },
      incremental: "union",
    });
    expect(devmail.fromEnv({ ...full, REALMGATE_DEVMAIL_NAME: "Team mail" })!.label).toBe("Team mail");
    expect(devmail.fromEnv(full)!.classify).toBe(classifyGoogleApi);
  });

  it("names the first missing or malformed variable in one line", () => {
    const { REALMGATE_DEVMAIL_API_URL: _, ...partial } = full;
    expect(() => devmail.fromEnv(partial)).toThrow(new ConfigError("Invalid configuration: REALMGATE_DEVMAIL_API_URL is required when any REALMGATE_DEVMAIL_* variable is set"));
    expect(() => devmail.fromEnv({ ...full, REALMGATE_DEVMAIL_ISSUER: "ftp://x" })).toThrow(/^Invalid configuration: REALMGATE_DEVMAIL_ISSUER /);
  });
});
