import { describe, expect, it } from "vitest";
import { ConfigError, parseEnv } from "./env";

const good = { AUTH_SECRET: "x".repeat(32) };

describe("parseEnv", () => {
  it("accepts a minimal configuration and defaults to the embedded database", () => {
    const env = parseEnv(good);
    expect(env.dbKind).toBe("pglite");
    expect(env.appUrl).toBe("http://localhost:3000");
    expect(env.REALMGATE_DEV_LOGIN).toBe(false);
  });

  it("reads proxy trust, host aliases, limits and the statement timeout", () => {
    const env = parseEnv({ ...good, REALMGATE_TRUST_PROXY: "1", REALMGATE_ALLOWED_HOSTS: " MCP.example.org, [::1]:8080 ,", MCP_RATE_LIMIT_PER_MINUTE: "1000", DB_STATEMENT_TIMEOUT_MS: "2000" });
    expect(env).toMatchObject({ REALMGATE_TRUST_PROXY: true, REALMGATE_ALLOWED_HOSTS: ["mcp.example.org", "[::1]:8080"], MCP_RATE_LIMIT_PER_MINUTE: 1000, DB_STATEMENT_TIMEOUT_MS: 2000 });
    expect(parseEnv(good)).toMatchObject({ REALMGATE_TRUST_PROXY: false, REALMGATE_ALLOWED_HOSTS: [], MCP_RATE_LIMIT_PER_MINUTE: 300, OAUTH_REGISTER_LIMIT_PER_HOUR: 60, DB_STATEMENT_TIMEOUT_MS: 15_000 });
  });

  it("switches to PostgreSQL when DATABASE_URL is set", () => {
    expect(parseEnv({ ...good, DATABASE_URL: "postgres://u@127.0.0.1:5432/db" }).dbKind).toBe("postgres");
  });

  it.each([
    [{}, "Invalid configuration: AUTH_SECRET is required"],
    [{ AUTH_SECRET: "short" }, "Invalid configuration: AUTH_SECRET must be at least 32 characters"],
    [{ ...good, DATABASE_URL: "mysql://x" }, "Invalid configuration: DATABASE_URL must start with postgres://"],
    [{ ...good, APP_URL: "not a url" }, "Invalid configuration: APP_URL"],
    [{ ...good, AUTH_OIDC_ISSUER: "http://127.0.0.1:9999" }, "Invalid configuration: AUTH_OIDC_CLIENT_ID is required when any AUTH_OIDC_* variable is set"],
    [{ ...good, REALMGATE_DEV_LOGIN: "yes" }, "Invalid configuration: REALMGATE_DEV_LOGIN"],
    [{ ...good, DB_CONNECT_TIMEOUT_MS: "soon" }, "Invalid configuration: DB_CONNECT_TIMEOUT_MS"],
    [{ ...good, MCP_RATE_LIMIT_PER_MINUTE: "100000000" }, "Invalid configuration: MCP_RATE_LIMIT_PER_MINUTE"],
    [{ ...good, MCP_RATE_LIMIT_PER_MINUTE: "0" }, "Invalid configuration: MCP_RATE_LIMIT_PER_MINUTE"],
    [{ ...good, OAUTH_REGISTER_LIMIT_PER_HOUR: "1e9" }, "Invalid configuration: OAUTH_REGISTER_LIMIT_PER_HOUR"],
    [{ ...good, DB_STATEMENT_TIMEOUT_MS: "5" }, "Invalid configuration: DB_STATEMENT_TIMEOUT_MS"],
    [{ ...good, REALMGATE_TRUST_PROXY: "yes" }, "Invalid configuration: REALMGATE_TRUST_PROXY"],
    [{ ...good, REALMGATE_ALLOWED_HOSTS: "ok.example, https://bad.example/" }, "Invalid configuration: REALMGATE_ALLOWED_HOSTS"],
  ])("refuses %j with one line naming the variable", (source, message) => {
    let caught: unknown;
    try {
      parseEnv(source);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as Error).message).toContain(message);
    expect((caught as Error).message).not.toContain("\n");
  });
});
