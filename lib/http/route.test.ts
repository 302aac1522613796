// The route wrappers' trust decisions: the CSRF origin check of cookie-authenticated writes, and request ids.
import { and, eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { auditEvents } from "@/db/schema";
import { envOverride, makeTenant } from "@/test-support";
import { createActor } from "@/lib/authz/actors";
import { createGrant } from "@/lib/authz/grants";
import { isAppError } from "@/lib/errors";
import { dispatch } from "@/lib/tools/dispatch";
import { assertSameOrigin, param, route, withCaller } from "./route";

const overrides = envOverride();
afterEach(() => overrides.restore());

/** A cookie-authenticated write as it reaches the app (`socket` is the request URL's host). */
const write = (headers: Record<string, string>, socket = "realmgate.test") => new Request(`http://${socket}/api/v1/api-keys`, { method: "POST", headers });

function refusal(req: Request): string | null {
  try {
    assertSameOrigin(req);
    return null;
  } catch (err) {
    if (isAppError(err)) return err.code;
    throw err;
  }
}

describe("assertSameOrigin (cookie-authenticated writes)", () => {
  it("accepts our own pages: APP_URL's origin, or the request's own origin on a served host", () => {
    expect(refusal(write({ host: "realmgate.test", origin: "http://realmgate.test" }))).toBeNull();
    expect(refusal(write({ host: "127.0.0.1:3100", origin: "http://127.0.0.1:3100" }, "127.0.0.1:3100"))).toBeNull();
    expect(refusal(new Request("http://realmgate.test/api/v1/me", { headers: { origin: "https://evil.example" } }))).toBeNull(); // a GET
  });

  it("refuses a foreign or missing Origin, and a Host we do not serve (DNS rebinding)", () => {
    expect(refusal(write({ host: "realmgate.test", origin: "https://evil.example" }))).toBe("forbidden");
    expect(refusal(write({ host: "realmgate.test" }))).toBe("forbidden");
    expect(refusal(write({ host: "evil.example.com", origin: "http://evil.example.com" }))).toBe("forbidden");
    // Another loopback port is another origin.
    expect(refusal(write({ host: "127.0.0.1:3100", origin: "http://127.0.0.1:3200" }, "127.0.0.1:3100"))).toBe("forbidden");
  });

  it("X-Forwarded-Host/Proto are ignored without REALMGATE_TRUST_PROXY and honoured with it", () => {
    // The attacker's request: its Origin matches the forwarded host it claims, not the one it was sent to.
    const forged = () => write({ host: "realmgate.test", "x-forwarded-host": "evil.example", "x-forwarded-proto": "http", origin: "http://evil.example" });
    expect(refusal(forged())).toBe("forbidden");
    overrides.set({ REALMGATE_ALLOWED_HOSTS: "evil.example" });
    expect(refusal(forged())).toBe("forbidden"); // still ignored: the Host is realmgate.test
    overrides.set({ REALMGATE_TRUST_PROXY: "1" });
    expect(refusal(forged())).toBeNull(); // behind a trusted proxy that host is the one asked for, and served
    overrides.set({ REALMGATE_ALLOWED_HOSTS: undefined });
    expect(refusal(forged())).toBe("forbidden"); // ... and refused when we do not serve it

    // A TLS-terminating proxy in front: the page is https://realmgate.test, the app sees http on an inner address.
    overrides.set({ APP_URL: "https://realmgate.test" });
    const proxied = () => write({ host: "10.0.0.5:3000", "x-forwarded-host": "realmgate.test", "x-forwarded-proto": "https", origin: "https://realmgate.test" }, "10.0.0.5:3000");
    expect(refusal(proxied())).toBeNull();
    // Untrusted, the request was sent to 10.0.0.5:3000, a host we do not serve (unless it is listed as an alias).
    overrides.set({ REALMGATE_TRUST_PROXY: undefined });
    expect(refusal(proxied())).toBe("forbidden");
    overrides.set({ REALMGATE_ALLOWED_HOSTS: "10.0.0.5:3000" });
    expect(refusal(proxied())).toBeNull();
  });

  it("Forwarded (RFC 7239) is ignored without trust, like X-Forwarded-*", () => {
    const forged = write({ host: "realmgate.test", forwarded: "host=evil.example;proto=http", origin: "http://evil.example" });
    overrides.set({ REALMGATE_ALLOWED_HOSTS: "evil.example" });
    expect(refusal(forged)).toBe("forbidden");
  });
});

describe("request ids", () => {
  it("are always ours: a client's X-Request-Id is echoed apart, never adopted", async () => {
    const handler = route(() => new Response("ok"));
    const res = await handler(new Request("http://realmgate.test/x", { headers: { "x-request-id": "req_chosenbyclient" } }));
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    expect(res.headers.get("x-request-id")).not.toBe("req_chosenbyclient");
    expect(res.headers.get("x-client-request-id")).toBe("req_chosenbyclient");
    const failing = route(() => {
      throw new Error("boom");
    });
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    const err = await failing(new Request("http://realmgate.test/x", { headers: { "x-request-id": "req_chosenbyclient" } }));
    expect((await err.json()).error.request_id).toBe(err.headers.get("x-request-id"));
    expect(err.headers.get("x-request-id")).not.toBe("req_chosenbyclient");
    quiet.mockRestore();
  });

  it("the audit record of a tool call carries our request id, and the client's as client_request_id", async () => {
    const t = await makeTenant({ alice: "owner" });
    const { actor, token } = await createActor(t.db, t.users.alice!, { name: "Traced agent", kind: "automation", issue_token: true, token_expires_in_days: null });
    await createGrant(t.db, t.users.alice!, { actor_id: actor.id, namespace: "docs", operations: ["provider.about"], resource_scope: null, expires: "1d" });
    // The REST tool route's wiring (app/ is out of lib's reach).
    const toolPost = withCaller(async (req, ctx) => Response.json(await dispatch(ctx.auth, param(ctx, "tool"), await req.json())));
    const res = await toolPost(
      new Request("http://realmgate.test/api/v1/tools/provider_about", {
        method: "POST",
        headers: { authorization: `Bearer ${token!.token}`, "content-type": "application/json", "x-request-id": "req_forgedbyclient1" },
        body: JSON.stringify({ namespace: "docs" }),
      }),
      { params: Promise.resolve({ tool: "provider_about" }) },
    );
    expect(res.status).toBe(200);
    const ours = res.headers.get("x-request-id")!;
    const rows = await t.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.event, "tool.call")));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.requestId).toBe(ours);
    expect(rows[0]!.details).toMatchObject({ client_request_id: "req_forgedbyclient1" });
    const forged = await t.db.select().from(auditEvents).where(eq(auditEvents.requestId, "req_forgedbyclient1"));
    expect(forged).toHaveLength(0);
  });
});
