// Which failures mean "the database is unavailable" (503 with Retry-After) rather than a bug (500).
import { describe, expect, it } from "vitest";
import { toErrorBody } from "@/lib/errors";
import { DatabaseUnavailableError, databaseUnavailableReason } from "./errors";

const pgError = (code: string, message = "x") => Object.assign(new Error(message), { code, severity: "FATAL" });
/** drizzle's shape: the statement in the message, the driver's error as the cause. */
const failedQuery = (cause: unknown) => Object.assign(new Error("Failed query: select 1\nparams: "), { name: "DrizzleQueryError", cause });

describe("databaseUnavailableReason", () => {
  it.each([
    [pgError("57P01", "terminating connection due to administrator command"), "admin_shutdown"],
    [pgError("57P03", "the database system is starting up"), "cannot_connect_now"],
    [pgError("57014", "canceling statement due to statement timeout"), "statement_timeout"],
    [pgError("08006"), "connection_exception"],
    [pgError("53300"), "too_many_connections"],
    [Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }), "ECONNREFUSED"],
    [Object.assign(new AggregateError([Object.assign(new Error("x"), { code: "ECONNREFUSED" })], "")), "ECONNREFUSED"],
    [new Error("Connection terminated unexpectedly"), "connection_terminated"],
    [new Error("Connection terminated due to connection timeout"), "connection_terminated"],
    [new Error("timeout exceeded when trying to connect"), "connect_timeout"],
    [new Error("Query read timeout"), "query_timeout"],
    [new Error("Client has encountered a connection error and is not queryable"), "connection_lost"],
    [new DatabaseUnavailableError("Cannot reach the PostgreSQL server"), "unreachable"],
    [failedQuery(pgError("57P01")), "admin_shutdown"],
    [failedQuery(new Error("Connection terminated unexpectedly")), "connection_terminated"],
  ])("%s → %s", (err, reason) => {
    expect(databaseUnavailableReason(err)).toBe(reason);
  });

  it.each([
    [pgError("23505", "duplicate key value violates unique constraint")],
    [pgError("42P01", "Connection terminated: relation does not exist")], // a SQLSTATE decides, not the words
    [failedQuery(pgError("22P02"))],
    [new Error("boom")],
    ["a string"],
    [null],
  ])("%s is not an outage", (err) => {
    expect(databaseUnavailableReason(err)).toBeNull();
  });
});

describe("toErrorBody", () => {
  it("answers an outage 503 service_unavailable with Retry-After, not 500", () => {
    const { status, headers, body } = toErrorBody(failedQuery(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" })), "req_1");
    expect(status).toBe(503);
    expect(Number(headers["Retry-After"])).toBeGreaterThan(0);
    expect(body.error).toMatchObject({ code: "service_unavailable", details: { reason: "ECONNREFUSED" }, request_id: "req_1" });
    expect(JSON.stringify(body)).not.toContain("select 1");
  });
});
