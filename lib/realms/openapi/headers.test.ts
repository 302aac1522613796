// Headers a document declares: names checked at import (an operation whose header cannot exist is dropped),
// framing and hop-by-hop headers never taken from a document (dropped at import, refused at call time by
// compileRequest and again by egress), and values checked at call time — every refusal an `invalid_input`
// naming the parameter, never a 500. A local service proves what actually went over the wire.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorOf, makeTenant } from "@/test-support";
import { AppError } from "@/lib/errors";
import type { DeliveryPort } from "@/lib/realms/contract";
import { dispatch } from "@/lib/tools/dispatch";
import { compileSpec, type OperationContract, type ParamPlan } from "./compile";
import { credentialSchema } from "./credentials";
import { checkHeaders, egress } from "./egress";
import { NetError } from "@/lib/net";
import { compileRequest, execute } from "./execute";
import { startHelpdeskServer, type HelpdeskServer } from "./fixtures/helpdesk-server";
import { fieldValueProblem, isHeaderName, specHeaderRefusal } from "./headers";
import { importRealm } from "@/lib/openapi-admin/import";
import { loadSpec } from "./spec";

let server: HelpdeskServer;
beforeAll(async () => {
  server = await startHelpdeskServer();
  process.env.REALMGATE_OPENAPI_PRIVATE_HOSTS = "127.0.0.1";
});
afterAll(async () => {
  delete process.env.REALMGATE_OPENAPI_PRIVATE_HOSTS;
  await server.close();
});

const delivery: DeliveryPort = {
  storeFile: () => Promise.reject(new Error("not used")),
  fileUrl: () => Promise.reject(new Error("not used")),
  deleteFile: () => Promise.reject(new Error("not used")),
};

const header = (name: string, extra: Record<string, unknown> = {}) => ({ name, in: "header", schema: { type: "string" }, ...extra });
const doc = (paths: Record<string, unknown>) => ({ openapi: "3.1.0", info: { title: "Desk", version: "1" }, servers: [{ url: "https://desk.example.com/api/v2" }], paths });

/** What a call answers: the AppError's code, message and issues — or the fact that it threw something else. */
function refusal(fn: () => unknown): { code: string; message: string; issues: unknown } {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return { code: e.code, message: e.message, issues: e.details.issues };
    throw new Error(`expected an AppError, got ${String(e)}`);
  }
  throw new Error("expected a refusal");
}


/** A contract as an older import stored it, before header parameters were checked. */
function staleContract(method: "GET" | "POST", path: string, headerNames: string[]): OperationContract {
  const params: ParamPlan[] = headerNames.map((name) => ({ name, in: "header", field: name, required: false, style: "simple", explode: false, json: false }));
  return { method, path, params, body: null, input_schema: {}, example: {}, accepts: ["application/json"] };
}

describe("header rules", () => {
  it("names are RFC 9110 tokens; values are field values (ASCII and Latin-1, no controls)", () => {
    for (const ok of ["X-Api-Key", "x_trace", "If-None-Match", "A!#$%&'*+.^_`|~9"]) expect(isHeaderName(ok)).toBe(true);
    for (const bad of ["", "X Bad", "X-Bad:", "Ünïcode", "a\nb", "(x)", "x".repeat(257)]) expect(isHeaderName(bad)).toBe(false);
    expect(fieldValueProblem("plain value, with\ttab")).toBeNull();
    expect(fieldValueProblem("café")).toBeNull();
    expect(fieldValueProblem("a\r\nX-Injected: 1")).toBe("contains a line break");
    expect(fieldValueProblem("bell\u0007")).toBe("contains control characters");
    expect(fieldValueProblem("日本")).toMatch(/contains "日" \(U\+65E5\); a header carries only ASCII and Latin-1 characters/);
    expect(fieldValueProblem("😀")).toMatch(/U\+1F600/);
    for (const h of ["Host", "content-length", "Transfer-Encoding", "Connection", "Upgrade", "TE", "Trailer", "Keep-Alive", "Proxy-Authorization", "proxy-connection", "Accept", "Content-Type", "Authorization"]) {
      expect(specHeaderRefusal(h)).not.toBeNull();
    }
    expect(specHeaderRefusal("X-Request-Source")).toBeNull();
  });
});

describe("at import", () => {
  const spec = doc({
    "/tickets": {
      get: {
        operationId: "tickets/list",
        parameters: [
          header("Host"),
          header("Content-Length"),
          header("Transfer-Encoding"),
          header("Connection"),
          header("Keep-Alive"),
          header("Upgrade"),
          header("TE"),
          header("Trailer"),
          header("Proxy-Authorization"),
          header("Authorization"),
          header("Accept"),
          header("X-Trace"),
        ],
      },
      post: { operationId: "tickets/create", parameters: [header("X Bad Name")] },
    },
    "/status": { get: { operationId: "meta/status" } },
  });

  it("drops framing, hop-by-hop and Realmgate-set header parameters, each with a warning", async () => {
    const compiled = compileSpec(await loadSpec(spec));
    const list = compiled.operations.find((o) => o.card.action === "tickets/list")!;
    expect(list.contract.params.map((p) => p.name)).toEqual(["X-Trace"]);
    expect(list.card.input_fields).toEqual(["X-Trace"]);
    const dropped = compiled.warnings.filter((w) => w.path === "paths./tickets.get").map((w) => w.message);
    expect(dropped).toHaveLength(11);
    expect(dropped).toContain("header parameter Host is dropped: it frames or routes the request, so only Realmgate sets it");
    expect(dropped).toContain("header parameter Proxy-Authorization is dropped: it frames or routes the request, so only Realmgate sets it");
    expect(dropped.find((m) => m.startsWith("header parameter Authorization"))).toMatch(/Realmgate sets it/);
  });

  it("refuses an operation whose header parameter is not a header name: dropped from the realm, named in the report", async () => {
    const t = await makeTenant();
    const report = await importRealm(t.db, t.users.alice!, { namespace: "desk", spec, dry_run: true });
    expect(report.operations.total).toBe(2);
    expect(report.diff.added.operations).toEqual(["tickets/list", "meta/status"]);
    expect(report.dropped).toEqual({
      count: 1,
      operations: [{ at: "paths./tickets.post", reason: 'header parameter "X Bad Name" is not a valid HTTP header name (RFC 9110 token)' }],
    });
    expect(report.warnings).toContainEqual({ path: "paths./tickets.post", message: 'header parameter "X Bad Name" is not a valid HTTP header name (RFC 9110 token); the operation is not imported' });
    expect(report.warnings.filter((w) => w.message.includes("is dropped"))).toHaveLength(11);
  });

  it("a credential header cannot be a framing header, nor carry what a header cannot", () => {
    expect(credentialSchema.safeParse({ type: "header", name: "Upgrade", value: "h2c" }).success).toBe(false);
    expect(credentialSchema.safeParse({ type: "header", name: "Proxy-Authorization", value: "x" }).success).toBe(false);
    expect(credentialSchema.safeParse({ type: "header", name: "X-Api-Key", value: "ключ" }).success).toBe(false);
    expect(credentialSchema.safeParse({ type: "bearer", token: "tok\u0001" }).success).toBe(false);
    expect(credentialSchema.safeParse({ type: "header", name: "X-Api-Key", value: "k-1" }).success).toBe(true);
  });
});

describe("at call time", () => {
  const withTrace = staleContract("GET", "/status", ["X-Trace"]);

  it.each([
    ["日本語", /^Header parameter X-Trace contains "日" \(U\+65E5\)/],
    ["😀", /^Header parameter X-Trace contains "😀" \(U\+1F600\)/],
    ["ok\r\nHost: evil.example", /^Header parameter X-Trace contains a line break\.$/],
    ["nul\u0000", /^Header parameter X-Trace contains control characters\.$/],
    ["del\u007f", /^Header parameter X-Trace contains control characters\.$/],
  ])("a value that is not a field value (%j) answers invalid_input naming the parameter", (value, message) => {
    const r = refusal(() => compileRequest(server.baseUrl, withTrace, { "X-Trace": value }, null));
    expect(r).toMatchObject({ code: "invalid_input", message: expect.stringMatching(message), issues: [{ path: "X-Trace" }] });
  });

  it("through the tools: an imported header parameter with a non-Latin-1 value answers invalid_input, and nothing is sent", async () => {
    const t = await makeTenant();
    const spec = doc({ "/status": { get: { operationId: "meta/status", parameters: [header("X-Trace"), header("Host"), header("Content-Length")] } } });
    await importRealm(t.db, t.users.alice!, { namespace: "trace", spec, base_url: server.baseUrl });
    const before = server.requests.length;
    const e = await errorOf(dispatch(t.users.alice!, "object_action", { namespace: "trace", action: "meta/status", payload: { "X-Trace": "日本語" } }));
    expect(e).toMatchObject({ code: "invalid_input", status: 400, message: expect.stringMatching(/^Header parameter X-Trace contains "日"/), details: { issues: [{ path: "X-Trace" }] } });
    // Host and Content-Length were dropped at import: they are not even fields an agent may give.
    const host = await errorOf(dispatch(t.users.alice!, "object_action", { namespace: "trace", action: "meta/status", payload: { Host: "evil.example" } }));
    expect(host.code).toBe("invalid_input");
    expect(server.requests.length).toBe(before);
    expect(await dispatch(t.users.alice!, "object_action", { namespace: "trace", action: "meta/status", payload: { "X-Trace": "ok" } })).toMatchObject({ status: 200 });
    expect(server.requests.at(-1)!.headers.host).toBe(new URL(server.baseUrl).host);
  });

  it("a Latin-1 value is sent as it is", async () => {
    const req = compileRequest(server.baseUrl, withTrace, { "X-Trace": "café" }, null);
    expect(await execute(req, { maxBytes: 4096, delivery, namespace: "desk", ownerUserId: "u", action: "meta/status" })).toMatchObject({ status: 200 });
    expect(server.requests.at(-1)!.headers["x-trace"]).toBe("café");
  });

  it("a stored contract naming framing headers: refused when the agent gives one, never sent", () => {
    const stale = staleContract("GET", "/status", ["Host", "Content-Length", "Transfer-Encoding", "Connection", "Proxy-Authorization", "Authorization", "X Bad"]);
    for (const name of ["Host", "Content-Length", "Transfer-Encoding", "Connection", "Proxy-Authorization", "Authorization"]) {
      const r = refusal(() => compileRequest(server.baseUrl, stale, { [name]: "x" }, null));
      expect(r).toMatchObject({ code: "invalid_input", message: expect.stringMatching(new RegExp(`^Header parameter ${name} cannot be sent: `)), issues: [{ path: name }] });
    }
    expect(refusal(() => compileRequest(server.baseUrl, stale, { "X Bad": "x" }, null)).message).toBe('Header parameter X Bad cannot be sent: "X Bad" is not an HTTP header name.');
    // Not given: nothing of them is sent.
    const req = compileRequest(server.baseUrl, stale, {}, { type: "bearer", token: "realm-secret" });
    expect(Object.keys(req.headers).sort()).toEqual(["accept", "authorization", "user-agent"]);
  });

  it("egress refuses framing headers from anyone, and Realmgate-set headers from parameters, before connecting", async () => {
    const before = server.requests.length;
    const url = new URL(`${server.baseUrl}/status`);
    const send = (headers: Record<string, string>, paramHeaders?: string[]) => egress({ url, method: "GET", headers, timeoutMs: 2000, maxBytes: 4096, paramHeaders });
    for (const h of ["host", "content-length", "transfer-encoding", "connection", "upgrade", "te", "trailer", "keep-alive", "proxy-authorization"]) {
      expect(() => send({ [h]: "1" })).toThrow(expect.objectContaining({ reason: "bad_header" }));
    }
    expect(() => checkHeaders({ authorization: "Bearer x" }, ["authorization"])).toThrow(/set by Realmgate, not by an operation's parameter/);
    expect(() => checkHeaders({ authorization: "Bearer x" })).not.toThrow();
    expect(() => checkHeaders({ "x-a": "日本" })).toThrow(NetError);
    expect(() => checkHeaders({ "x a": "1" })).toThrow(/not an HTTP header name/);
    expect(server.requests.length).toBe(before);
    // Through execute, the refusal is an answer, not a 500.
    const e = await errorOf(execute({ url, method: "GET", headers: { host: "evil.example" } }, { maxBytes: 4096, delivery, namespace: "desk", ownerUserId: "u", action: "meta/status" }));
    expect(e).toMatchObject({ code: "invalid_input", details: { reason: "bad_header" } });
  });

  it("the service sees its own Host, the realm's credential, no framing header an agent chose, and a GET that does not wait for a body", async () => {
    // An older stored contract: the agent tries every framing header; each is refused, then the call goes
    // out with the ones it may set.
    const stale = staleContract("GET", "/status", ["Host", "Content-Length", "Transfer-Encoding", "X-Trace"]);
    for (const name of ["Host", "Content-Length", "Transfer-Encoding"]) {
      expect(refusal(() => compileRequest(server.baseUrl, stale, { [name]: name === "Host" ? "evil.example" : "10" }, null)).code).toBe("invalid_input");
    }
    const req = compileRequest(server.baseUrl, stale, { "X-Trace": "t-1" }, { type: "header", name: "X-Api-Key", value: "k1" });
    // The server answers only once the request's body is complete: an announced-but-missing body would hang it,
    // and the call would end in its timeout (provider_unavailable) instead of this answer.
    const res = await execute(req, { timeoutMs: 3000, maxBytes: 4096, delivery, namespace: "desk", ownerUserId: "u", action: "meta/status" });
    expect(res).toMatchObject({ status: 200, body: { ok: true } });
    const seen = server.requests.at(-1)!;
    const origin = new URL(server.baseUrl);
    expect(seen).toMatchObject({ method: "GET", url: "/api/v2/status", body: "" });
    expect(seen.headers.host).toBe(origin.host);
    expect(seen.headers["x-api-key"]).toBe("k1");
    expect(seen.headers["x-trace"]).toBe("t-1");
    const names = seen.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
    expect(names.filter((n) => n === "host")).toHaveLength(1);
    expect(names).not.toContain("content-length");
    expect(names).not.toContain("transfer-encoding");
    expect(names).not.toContain("upgrade");
  });

  it("a POST's framing is Node's, from the body it actually sends", async () => {
    const spec = compileSpec(
      await loadSpec(
        doc({
          "/tickets": {
            post: {
              operationId: "tickets/create",
              parameters: [header("Content-Length"), header("Transfer-Encoding")],
              requestBody: { required: true, content: { "application/json": { schema: { type: "object", properties: { title: { type: "string" } } } } } },
            },
          },
        }),
      ),
    );
    const contract = spec.operations[0]!.contract;
    expect(contract.params).toEqual([]);
    const res = await execute(compileRequest(server.baseUrl, contract, { title: "Printer" }, null), { timeoutMs: 3000, maxBytes: 4096, delivery, namespace: "desk", ownerUserId: "u", action: "tickets/create" });
    expect(res).toMatchObject({ status: 201, body: { title: "Printer" } });
    const seen = server.requests.at(-1)!;
    expect(seen.headers["content-length"]).toBe(String(Buffer.byteLength(JSON.stringify({ title: "Printer" }))));
    expect(seen.headers["transfer-encoding"]).toBeUndefined();
  });
});
