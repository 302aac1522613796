import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import type { DeliveryPort } from "@/lib/realms/contract";
import { validatePayload } from "@/lib/tools/payload";
import { compileSpec, type OperationContract } from "./compile";
import { isPrivateAddress } from "@/lib/net";
import { checkTarget } from "./egress";
import { NetError } from "@/lib/net";
import { compileRequest, execute } from "./execute";
import { startHelpdeskServer, type HelpdeskServer } from "./fixtures/helpdesk-server";
import { loadSpec } from "./spec";
import { errorOf } from "@/test-support";

let contracts: Map<string, OperationContract>;
let server: HelpdeskServer;
const stored: { name: string; contentType: string; size: number }[] = [];
const delivery: DeliveryPort = {
  async storeFile({ name, contentType, bytes }) {
    stored.push({ name, contentType, size: bytes.byteLength });
    return { fileId: `fil_${stored.length}`, size: bytes.byteLength, sha256: "0".repeat(64) };
  },
  async fileUrl(fileId) {
    return { encoding: "url", url: `https://realmgate.test/api/v1/files/${fileId}?sig=x`, expires_at: "2030-01-01T00:00:00.000Z" };
  },
  deleteFile: () => Promise.reject(new Error("imported services never delete files")),
};

beforeAll(async () => {
  const spec = compileSpec(await loadSpec(fs.readFileSync(path.join(import.meta.dirname, "fixtures", "helpdesk.yaml"), "utf8")));
  contracts = new Map(spec.operations.map((o) => [o.card.action, o.contract]));
  server = await startHelpdeskServer();
  process.env.REALMGATE_OPENAPI_PRIVATE_HOSTS = "127.0.0.1";
});
afterAll(async () => {
  delete process.env.REALMGATE_OPENAPI_PRIVATE_HOSTS;
  await server.close();
});

const c = (action: string) => contracts.get(action)!;
const BASE = "https://helpdesk.example.com/api/v2";

function refusal(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error("expected a refusal");
}


describe("compiling a request (the model never supplies a URL, method or header)", () => {
  it("fills path, query, header and JSON body from the payload, and adds the credential", () => {
    const payload = validatePayload(c("comments/create").input_schema, { ticket_id: 7, body: "On it", "X-Request-Source": "agent" }, "x");
    const req = compileRequest(BASE, c("comments/create"), payload, { type: "bearer", token: "s3cret" });
    expect(req.method).toBe("POST");
    expect(req.url.toString()).toBe("https://helpdesk.example.com/api/v2/tickets/7/comments");
    expect(req.headers).toMatchObject({ authorization: "Bearer s3cret", "x-request-source": "agent", "content-type": "application/json" });
    expect(JSON.parse(req.body!.toString())).toEqual({ body: "On it", internal: false });
  });

  it("serialises query parameters by style: exploded by default, comma-joined when explode is false", () => {
    const req = compileRequest(BASE, c("tickets/list"), { status: "open", labels: ["a b", "c"], per_page: 5 }, { type: "query", name: "api_key", value: "k" });
    expect(req.url.search).toBe("?status=open&labels=a+b%2Cc&per_page=5&api_key=k");
    expect(req.body).toBeUndefined();
  });

  it.each([
    ["../admin", "contains a ../ or ./ segment"],
    ["a/../../b", "contains a ../ or ./ segment"],
    ["a%2Fb", "contains an encoded slash or dot"],
    ["%2e%2e", "contains an encoded slash or dot"],
    ["a\\b", "contains a backslash"],
    ["line\nbreak", "contains control characters"],
  ])("refuses the path parameter value %j (%s)", (login, why) => {
    expect(refusal(() => compileRequest(BASE, c("people/get"), { login }, null))).toEqual({ code: "invalid_input", message: `Path parameter login ${why}.` });
  });

  it("encodes path values, and allows a slash only in the last path parameter", () => {
    expect(compileRequest(BASE, c("people/get"), { login: "ädä lovelace?" }, null).url.pathname).toBe("/api/v2/people/%C3%A4d%C3%A4%20lovelace%3F");
    const tail = { method: "GET", path: "/repos/{owner}/contents/{path}", params: [{ name: "owner", in: "path", field: "owner", required: true, style: "simple", explode: false, json: false }, { name: "path", in: "path", field: "path", required: true, style: "simple", explode: false, json: false }], body: null, input_schema: {}, example: {}, accepts: [] } satisfies OperationContract;
    expect(compileRequest(BASE, tail, { owner: "octo", path: "docs/read me.md" }, null).url.pathname).toBe("/api/v2/repos/octo/contents/docs/read%20me.md");
    expect(refusal(() => compileRequest(BASE, tail, { owner: "octo/x", path: "a" }, null)).message).toBe("Path parameter owner contains a slash.");
  });
});

describe("calling the service", () => {
  const run = (action: string, payload: Record<string, unknown>, timeoutMs?: number) =>
    execute(compileRequest(server.baseUrl, c(action), payload, { type: "header", name: "X-Api-Key", value: "k1" }), {
      timeoutMs,
      maxBytes: 512 * 1024,
      delivery,
      namespace: "helpdesk",
      ownerUserId: "usr_x",
      action,
    });

  it("answers small JSON inline, and the service saw exactly the compiled request", async () => {
    expect(await run("tickets/get", { ticket_id: 1 })).toEqual({ status: 200, content_type: "application/json", body: expect.objectContaining({ id: 1, title: "Printer on fire" }) });
    const seen = server.requests.at(-1)!;
    expect(seen).toMatchObject({ method: "GET", url: "/api/v2/tickets/1" });
    expect(seen.headers["x-api-key"]).toBe("k1");
    expect(await run("tickets/delete", { ticket_id: 2 })).toEqual({ status: 204, body: null });
  });

  it("turns large and binary bodies into a signed download URL", async () => {
    const big = await run("people/get", { login: "big" });
    expect(big).toMatchObject({ status: 200, content_type: "application/json", file: { encoding: "url", url: expect.stringContaining("/api/v1/files/") } });
    const bin = await run("GET/tickets/ticket_id/attachments/attachment_id/content", { ticket_id: 1, attachment_id: "att_1" });
    expect(bin).toMatchObject({ content_type: "application/octet-stream", bytes: 2048, file: { encoding: "url" } });
    expect(stored.map((s) => s.name)).toEqual(["people-get.json", "GET-tickets-ticket_id-attachments-attachment_id-content.bin"]);
  });

  it("maps the service's failures: 404 → not_found, 5xx → provider_unavailable, slow → 504, too large → bounded", async () => {
    expect(await errorOf(run("tickets/get", { ticket_id: 404 }))).toMatchObject({ code: "not_found", details: { status: 404, service_message: "Ticket 404 not found" } });
    server.down = true;
    try {
      const down = await errorOf(run("meta/status", {}));
      expect(down).toMatchObject({ code: "provider_unavailable", status: 503, details: { status: 503, service_message: "The desk is down for maintenance" } });
    } finally {
      server.down = false;
    }
    const slow = await errorOf(run("people/get", { login: "slow" }, 300));
    expect(slow).toMatchObject({ code: "provider_unavailable", status: 504, details: { reason: "timeout" } });
    expect(await errorOf(run("people/get", { login: "huge" }))).toMatchObject({ code: "provider_unavailable", details: { reason: "response_too_large" } });
  });

  it("does not follow redirects", async () => {
    expect(await run("people/get", { login: "moved" })).toMatchObject({ status: 302, redirect: "https://elsewhere.example/people/moved" });
  });
});

describe("egress refuses private networks unless the operator allows the host", () => {
  it.each(["127.0.0.1", "10.1.2.3", "169.254.169.254", "192.168.0.1", "::1", "fd00::1", "::ffff:10.0.0.1", "::ffff:a00:1", "0.0.0.0"])("%s is private", (ip) => {
    expect(isPrivateAddress(ip)).toBe(true);
  });
  it.each(["8.8.8.8", "140.82.112.3", "2606:4700::1111", "::ffff:8.8.8.8"])("%s is public", (ip) => expect(isPrivateAddress(ip)).toBe(false));

  it("blocks a private literal unless listed, and URLs with credentials or odd schemes", () => {
    expect(() => checkTarget(new URL("http://169.254.169.254/latest/meta-data"))).toThrow(NetError);
    expect(() => checkTarget(new URL("http://127.0.0.1:9/x"))).not.toThrow();
    expect(() => checkTarget(new URL("https://user:pw@example.com/"))).toThrow(/user name or password/);
    expect(() => checkTarget(new URL("file:///etc/passwd"))).toThrow(/Only http and https/);
  });

  it("blocks a name that resolves to a private address at connect time", async () => {
    const url = new URL(server.baseUrl.replace("127.0.0.1", "localhost"));
    const res = await errorOf(
      execute({ url: new URL(`${url.toString()}/status`), method: "GET", headers: {} }, { maxBytes: 1000, delivery, namespace: "helpdesk", ownerUserId: "u", action: "meta/status" }),
    );
    expect(res).toMatchObject({ code: "realm_denied", details: { reason: "blocked_address" } });
  });
});
