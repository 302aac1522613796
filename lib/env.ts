// Configuration, read from the environment and validated once. A bad value stops start-up with one line.
import path from "node:path";
import { z } from "zod";
import { auditKeysProblem, signingKeyProblem } from "./audit/key-format";

const flag = z
  .enum(["0", "1", "true", "false", ""])
  .optional()
  .transform((v) => v === "1" || v === "true");

/** A duration like `90s`, `30m`, `24h` or `7d`, between 1 minute and 30 days, as milliseconds. */
const duration = (fallback: string, minMs = 60_000) =>
  z
    .string()
    .trim()
    .default(fallback)
    .transform((v, ctx) => {
      const m = /^(\d{1,7})(s|m|h|d)$/.exec(v);
      const ms = m ? Number(m[1]) * { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as "s" | "m" | "h" | "d"] : NaN;
      if (!(ms >= minMs && ms <= 30 * 86_400_000)) {
        ctx.addIssue({ code: "custom", message: `must be a duration like 30m, 24h or 7d, between ${minMs >= 60_000 ? "1 minute" : `${minMs / 1000} seconds`} and 30 days` });
        return z.NEVER;
      }
      return ms;
    });

export const optionalUrl = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v ? v : undefined))
  .pipe(z.url({ protocol: /^https?$/ }).optional());

export const envSchema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    DATABASE_URL: z
      .string()
      .trim()
      .optional()
      .transform((v) => (v ? v : undefined))
      .refine((v) => v === undefined || /^postgres(ql)?:\/\//.test(v), "must start with postgres:// or postgresql://"),
    REALMGATE_DATA_DIR: z.string().default(".data"),
    AUTH_SECRET: z.string().min(32, "must be at least 32 characters (try: openssl rand -base64 32)"),
    APP_URL: optionalUrl,
    AUTH_OIDC_ISSUER: optionalUrl,
    AUTH_OIDC_CLIENT_ID: z.string().optional(),
    AUTH_OIDC_CLIENT_SECRET: z.string().optional(),
    AUTH_OIDC_NAME: z.string().default("Single sign-on"),
    REALMGATE_DEV_LOGIN: flag,
    REALMGATE_SEED_DEMO: flag,
    DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5000),
    /** Every PostgreSQL statement is cancelled after this long (server-side `statement_timeout`; PGlite: not applied). */
    DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(15_000),
    /** PostgreSQL: connections this process keeps to the server at most (a call waits for a free one). */
    DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
    /** PostgreSQL: send parameterized statements as named prepared statements (db/prepared.ts). Off: "0". */
    DB_PREPARED_STATEMENTS: z
      .enum(["0", "1", "true", "false", ""])
      .optional()
      .transform((v) => v !== "0" && v !== "false"),
    /** PostgreSQL: BEGIN and a tool call's COMMIT travel with a statement, in one round trip (db/pipeline.ts). Off: "0". */
    DB_PIPELINE: z
      .enum(["0", "1", "true", "false", ""])
      .optional()
      .transform((v) => v !== "0" && v !== "false"),
    /** Honour X-Forwarded-For/Host/Proto and Forwarded: only behind a proxy that overwrites them. */
    REALMGATE_TRUST_PROXY: flag,
    /** Other names this server answers to besides APP_URL's host (`host[:port]`, comma-separated; no port = any port). */
    REALMGATE_ALLOWED_HOSTS: z
      .string()
      .optional()
      .transform((v, ctx) => {
        const hosts = (v ?? "").split(",").map((h) => h.trim().toLowerCase()).filter(Boolean);
        const bad = hosts.find((h) => !/^(\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*)(:\d{1,5})?$/.test(h));
        if (bad !== undefined) {
          ctx.addIssue({ code: "custom", message: `must be comma-separated host[:port] names (got ${JSON.stringify(bad.slice(0, 80))})` });
          return z.NEVER;
        }
        return hosts;
      }),
    /** Per-caller tool calls per minute (MCP and REST together). */
    MCP_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(300),
    /** Dynamic OAuth client registrations per hour (per client address behind a trusted proxy, else for everyone). */
    OAUTH_REGISTER_LIMIT_PER_HOUR: z.coerce.number().int().min(1).max(100_000).default(60),
    /** Token vault keys, `kid:base64key,…` (first = current); unset derives a development key from AUTH_SECRET. */
    REALMGATE_VAULT_KEYS: z.string().trim().optional(),
    /** Audit MAC keys, `kid:base64key,…` (first MACs new records, all verify); unset derives a development key from AUTH_SECRET. */
    REALMGATE_AUDIT_KEYS: z.string().trim().optional().superRefine((v, ctx) => {
      const problem = v ? auditKeysProblem(v) : null;
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }),
    /** The Ed25519 key that signs audit checkpoints: a base64 32-byte seed or PKCS#8 key; unset derives a development key from AUTH_SECRET. */
    REALMGATE_AUDIT_SIGNING_KEY: z.string().trim().optional().superRefine((v, ctx) => {
      const problem = v ? signingKeyProblem(v) : null;
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }),
    /** The audit digest store outside the database (signed checkpoints); default `<data dir>/audit-digests`. */
    REALMGATE_AUDIT_DIGEST_DIR: z.string().trim().optional(),
    /** Connection providers read their own variables (lib/connections/providers/<id>/). */
    /** Hosts an imported OpenAPI service may reach even when they resolve to private addresses (comma-separated). */
    REALMGATE_OPENAPI_PRIVATE_HOSTS: z.string().trim().optional(),
    /** Hosts a remote provider may be on although they are private, and reached over plain HTTP (comma-separated; development lists 127.0.0.1). */
    REALMGATE_REMOTE_PRIVATE_HOSTS: z.string().trim().optional(),
    /** How long calls to a remote provider stop after 5 consecutive failures (read by lib/remote/breaker.ts). */
    REALMGATE_REMOTE_BREAKER_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
    /** Bound on every call to an outside provider. */
    REALMGATE_PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
    /** Calls to one remote provider in flight at once per app node (each holds a pooled connection while it waits). */
    REALMGATE_REMOTE_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(100).default(4),
    /** Calls on native realms one app node runs against the database at once; more wait (lib/limits/call-slots.ts). Unset: 2 × CPUs + 1. */
    REALMGATE_NATIVE_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(1000).optional(),
    /** Serve POST /api/bench/floor (lib/bench-floor.ts): `npm run bench:load` sets it for the server it starts; leave it off. */
    REALMGATE_BENCH_FLOOR: flag,
    /** An OpenAI-compatible embeddings API (base URL, with or without `/v1`): enables semantic and hybrid capability search. */
    REALMGATE_EMBEDDINGS_URL: optionalUrl,
    REALMGATE_EMBEDDINGS_MODEL: z.string().trim().max(200).optional(),
    /** Sent as a Bearer token to the embeddings API; never logged. */
    REALMGATE_EMBEDDINGS_API_KEY: z.string().trim().optional(),
    /** How long a pending consent request waits for its person: `90s`, `30m`, `24h`, `7d` (at most 30 days). */
    REALMGATE_CONSENT_REQUEST_TTL: duration("24h"),
    /** How long a single-call approval waits to be decided and then used: `15m` by default (1 minute to 30 days). */
    REALMGATE_APPROVAL_TTL: duration("15m"),
    /** How long an agent's working set of exact tools lasts unused (no tool of it materialized or called): `30m` by default (5 seconds to 30 days). */
    REALMGATE_WORKING_SET_TTL: duration("30m", 5_000),
  })
  .superRefine((env, ctx) => {
    const oidc = [env.AUTH_OIDC_ISSUER, env.AUTH_OIDC_CLIENT_ID, env.AUTH_OIDC_CLIENT_SECRET];
    if (oidc.some(Boolean) && !oidc.every(Boolean)) {
      for (const key of ["AUTH_OIDC_ISSUER", "AUTH_OIDC_CLIENT_ID", "AUTH_OIDC_CLIENT_SECRET"] as const) {
        if (!env[key]) ctx.addIssue({ code: "custom", path: [key], message: "is required when any AUTH_OIDC_* variable is set" });
      }
    }
    if (env.REALMGATE_EMBEDDINGS_URL && !env.REALMGATE_EMBEDDINGS_MODEL) {
      ctx.addIssue({ code: "custom", path: ["REALMGATE_EMBEDDINGS_MODEL"], message: "is required when REALMGATE_EMBEDDINGS_URL is set" });
    }
  });

export type Env = z.infer<typeof envSchema> & { dataDir: string; appUrl: string; dbKind: "pglite" | "postgres" };

export class ConfigError extends Error {}

/** Parse an environment; throws ConfigError whose message is one line naming the variable. */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const name = issue.path.join(".") || "environment";
    const missing = issue.code === "invalid_type" && source[name] === undefined;
    throw new ConfigError(`Invalid configuration: ${name} ${missing ? "is required" : issue.message}`);
  }
  const env = result.data;
  return {
    ...env,
    dataDir: path.resolve(env.REALMGATE_DATA_DIR),
    appUrl: (env.APP_URL ?? `http://localhost:${source.PORT ?? "3000"}`).replace(/\/+$/, ""),
    dbKind: env.DATABASE_URL ? "postgres" : "pglite",
  };
}

const g = globalThis as unknown as { __realmgateEnv?: Env };

/** The process's configuration, parsed on first use. */
export function env(): Env {
  if (!g.__realmgateEnv) g.__realmgateEnv = parseEnv(process.env);
  return g.__realmgateEnv;
}

/** Re-read process.env (after a test or a script changes it). */
export function reloadEnv(): void {
  g.__realmgateEnv = undefined;
}
