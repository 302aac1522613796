// Lookup tables indexed by a caller's text find only their own keys: `constructor`, `__proto__`, `toString`… are
// names like any other, never Object.prototype's (which answered 500s: a realm "found" for namespace `constructor`).
import { beforeAll, describe, expect, it } from "vitest";
import { errorOf, inCall, makeTenant, refusingDelivery, type TestTenant, userPrincipal } from "@/test-support";
import { adapter as boardAdapter } from "./board/adapter";
import { riskOf } from "./contract";
import { manifest as docsManifest } from "./docs/manifest";
import { adapter as mailAdapter } from "./mail/adapter";
import { compileRequest } from "./openapi/execute";
import type { OperationContract } from "./openapi/compile";
import { findRealm, listRealms, requireRealm } from "./registry";

const WORDS = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "isPrototypeOf", "__defineGetter__"];

let t: TestTenant;
beforeAll(async () => {
  t = await makeTenant({ alice: "owner" });
});

describe("the realm registry", () => {
  it.each(WORDS)("namespace %s is no realm: null, and not_found", async (ns) => {
    expect(await findRealm(t.db, t.tenantId, ns)).toBeNull();
    expect((await errorOf(() => requireRealm(t.db, t.tenantId, ns))).code).toBe("not_found");
  });

  it("lists the same realms as ever", async () => {
    expect((await listRealms(t.db, t.tenantId)).map((r) => r.manifest.namespace).sort()).toEqual(["board", "docs", "mail", "memory", "slack"]);
  });
});

describe("riskOf", () => {
  it.each(WORDS)("an unknown operation %s is treated as destructive, never a function", (w) => {
    expect(riskOf(docsManifest, w as never)).toBe("destructive");
  });
});

describe("adapters' kind tables", () => {
  it.each(WORDS)("board and mail refuse kind %s as invalid_input", async (kind) => {
    const board = await errorOf(() =>
      inCall(t, userPrincipal(t, "alice"), refusingDelivery("board"), (ctx) => boardAdapter.list(ctx, { kind, filter: {}, after: null, limit: 5 })),
    );
    expect(board.code).toBe("invalid_input");
    const mail = await errorOf(() => inCall(t, userPrincipal(t, "alice"), refusingDelivery("mail"), async (ctx) => mailAdapter.list(ctx, { kind, filter: {}, after: null, limit: 5 })));
    expect(mail.code).toBe("invalid_input");
  });
});

describe("compiling a request for an imported operation", () => {
  const contract: OperationContract = {
    method: "POST",
    path: "/things",
    params: [
      { name: "constructor", in: "query", field: "constructor", required: false, style: "form", explode: true, json: false },
      { name: "toString", in: "query", field: "toString", required: false, style: "form", explode: true, json: false },
    ],
    body: { mode: "flat", field: null, fields: ["valueOf", "__proto__", "title"], contentType: "application/json", encoding: "json", required: false },
    input_schema: { type: "object" },
    example: {},
    accepts: ["application/json"],
  };

  it("sends only the fields the payload has: parameters named constructor or toString are not Object.prototype's", () => {
    const req = compileRequest("https://odd.example.com", contract, { title: "t" }, null);
    expect(req.url.search).toBe("");
    expect(JSON.parse(req.body!.toString("utf8"))).toEqual({ title: "t" });
  });

  it("sends them when given, even `__proto__` as a body field", () => {
    const payload = JSON.parse('{"constructor":"c","toString":"s","__proto__":{"x":1},"valueOf":2}') as Record<string, unknown>;
    const req = compileRequest("https://odd.example.com", contract, payload, null);
    expect(req.url.searchParams.get("constructor")).toBe("c");
    expect(req.url.searchParams.get("toString")).toBe("s");
    expect(JSON.parse(req.body!.toString("utf8"))).toEqual(JSON.parse('{"valueOf":2,"__proto__":{"x":1}}'));
  });
});
