// A 5xx is logged as one sanitized line: never a failed query's SQL or parameters (API-key hashes, tokens, text).
import { DrizzleQueryError, sql } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { getDb } from "@/db/client";
import { errorResponse } from "@/lib/http/route";
import { serverErrorLine } from "./server-log";

const SECRET = "rgk_secret_4f9a1c0d2e";
const HASH = "9b1f0e6a77c04b2d8e3f5a6b7c8d9e0f";

/** What errorResponse wrote to the log, and its answer. */
async function logged(err: unknown, requestId = "req_logtest01") {
  const spy = vi.spyOn(console, "error").mockImplementation(() => {});
  try {
    const res = errorResponse(err, requestId);
    return { text: spy.mock.calls.map((args) => args.map(String).join(" ")).join("\n"), res, calls: spy.mock.calls.length };
  } finally {
    spy.mockRestore();
  }
}

afterEach(() => vi.restoreAllMocks());

describe("errorResponse logs 5xx without query parameters", () => {
  it("an error shaped like drizzle's: request id, class, the PostgreSQL code and message, no SQL, no params", async () => {
    const pg = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: "22021", severity: "ERROR", detail: `Key (hash)=(${HASH}) exists.` });
    const err = new DrizzleQueryError(`select "id" from "api_keys" where "hash" = $1 and "prefix" = $2`, [HASH, SECRET], pg);
    expect(err.message).toContain(SECRET); // the leak this guards against
    const { text, res, calls } = await logged(err);
    expect(calls).toBe(1);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(HASH);
    expect(text).not.toMatch(/params|api_keys|select/i);
    expect(text).toContain("[req_logtest01]");
    expect(text).toContain("DrizzleQueryError");
    expect(text).toContain('PostgreSQL error 22021: invalid byte sequence for encoding "UTF8": 0x00');
    expect(text.split("\n")).toHaveLength(1);
    expect(res.status).toBe(500);
    const body = await res.json();
    expect(body.error.code).toBe("internal_error");
    expect(JSON.stringify(body)).not.toContain(SECRET);
  });

  it("a real failed query on the database", async () => {
    const db = await getDb();
    const err = await db.execute(sql`select ${`${SECRET}\u0000`}::text as x, ${HASH}::text as y`).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    const { text } = await logged(err);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(HASH);
    expect(text).toContain("[req_logtest01]");
    expect(text).toMatch(/PostgreSQL error [0-9A-Z]{5}/);
  });

  it("parameters holding newlines and `at` never pass for stack frames", () => {
    const err = new DrizzleQueryError("insert into notes (body) values ($1)", [`x\n    at ${SECRET} (/evil.ts:1:1)`], undefined);
    const line = serverErrorLine(err, "req_x");
    expect(line).not.toContain(SECRET);
    expect(line).toContain("a database query failed");
  });

  it("other errors keep their class, message and where they were thrown, on one line", () => {
    const line = serverErrorLine(new TypeError("Cannot read properties of undefined (reading 'kinds')"), "req_y");
    expect(line).toMatch(/^\[req_y\] TypeError: Cannot read properties of undefined \(reading 'kinds'\) \(at .*log\.test\.ts/);
    const wrapped = serverErrorLine(new Error("boom params: a,b,c"), "req_z");
    expect(wrapped).toContain("boom params: [omitted]");
    expect(wrapped).not.toContain("a,b,c");
  });

  it("4xx answers log nothing", async () => {
    const { AppError } = await import("@/lib/errors");
    expect((await logged(new AppError("invalid_input", "no"))).calls).toBe(0);
  });
});

describe("next dev's request log", () => {
  it("leaves out a signed download link and a sign-in callback's code, and keeps every other request", async () => {
    const { default: config } = await import("@/next.config");
    const { ignoreLoggingIncomingRequests } = (await import("next/dist/server/dev/log-requests.js")) as unknown as {
      ignoreLoggingIncomingRequests: (req: { url: string }, logging: unknown) => boolean;
    };
    const ignored = (url: string) => ignoreLoggingIncomingRequests({ url }, config.logging);
    expect(ignored("/api/v1/files/fil_abc?by=usr_1&exp=1796546960&sig=UyTKhmcZbEjzKqlRJAJ97ENpZH2tOmvTnJ5Otv6w1uE")).toBe(true);
    expect(ignored("/api/v1/files/fil_abc?sig=x&by=usr_1")).toBe(true);
    expect(ignored("/api/auth/callback/oidc?code=abc123&state=xyz")).toBe(true);
    expect(ignored("/api/v1/tools/search_objects")).toBe(false);
    expect(ignored("/settings/realms?namespace=docs")).toBe(false);
    expect(ignored("/signin?callbackUrl=%2Fapprovals")).toBe(false);
  });
});
