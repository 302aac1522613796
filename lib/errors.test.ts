import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AppError, parseWith, toErrorBody } from "./errors";

describe("toErrorBody", () => {
  it("shapes an AppError with its code, status and details", () => {
    const out = toErrorBody(new AppError("not_found", "No such thing.", { details: { ref: "x" } }), "req_1");
    expect(out.status).toBe(404);
    expect(out.body).toEqual({ error: { code: "not_found", message: "No such thing.", details: { ref: "x" }, request_id: "req_1" } });
  });

  it("names the field path of a zod failure", () => {
    let err: unknown;
    try {
      parseWith(z.strictObject({ a: z.strictObject({ b: z.number() }) }), { a: { b: "no" } });
    } catch (e) {
      err = e;
    }
    const out = toErrorBody(err, "req_2");
    expect(out.status).toBe(400);
    expect(out.body.error.code).toBe("invalid_input");
    expect(out.body.error.message).toContain("a.b");
  });

  it("never leaks an unknown error's message or stack", () => {
    const out = toErrorBody(new Error("password=hunter2 at db.ts:10"), "req_3");
    expect(out.status).toBe(500);
    expect(out.body.error.code).toBe("internal_error");
    expect(JSON.stringify(out.body)).not.toContain("hunter2");
    expect(out.body.error.message).toContain("req_3");
  });
});
