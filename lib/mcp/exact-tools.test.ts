// Exact tools over MCP: a read-only OAuth connection cannot run an exact write, even when the tool was
// materialized a moment before (a batch that materializes and calls in one request); the check is made when the
// tool runs, against the action it stands for, and the refusal is audited.
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditEvents } from "@/db/schema";
import { call, makeActor, makeTenant } from "@/test-support";
import { SCOPE_READ, SCOPE_WRITE } from "./config";
import { callTool } from "./server";

const text = (r: { content: unknown }) => JSON.parse((r.content as { text: string }[])[0]!.text) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe("an exact tool's OAuth scope", () => {
  it("is its action's, checked as it runs: realms:read runs an exact read, not an exact write", async () => {
    const t = await makeTenant();
    const agent = await makeActor(t, t.users.alice!);
    const readOnly = [SCOPE_READ];
    // Materializing is a read (object_schema): a read-only connection may do it.
    const made = await callTool(call(agent), "object_schema", { namespace: "docs", operation: "object.action.reply_comment", materialize: true }, 10_000, undefined, readOnly);
    expect(made.isError).toBeFalsy();
    const refused = await callTool(call(agent), "docs_reply_comment", { ref: "docs:thread:thr_aaaaaaaaaaaaaaaaaaaa", body: "hi" }, 10_000, undefined, readOnly);
    expect(refused.isError).toBe(true);
    expect(text(refused).error).toMatchObject({ code: "insufficient_scope", details: { required_scope: SCOPE_WRITE, granted_scopes: readOnly } });
    const [row] = await t.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.reason, "insufficient_scope")));
    expect(row).toMatchObject({ event: "tool.call", outcome: "deny", actorId: agent.actorId });
    // With realms:write the same call reaches gate one (no grant yet: consent).
    const asked = await callTool(call(agent), "docs_reply_comment", { ref: "docs:thread:thr_aaaaaaaaaaaaaaaaaaaa", body: "hi" }, 10_000, undefined, [SCOPE_READ, SCOPE_WRITE]);
    expect(text(asked).error.code).toBe("consent_required");
    // An exact read runs on realms:read (to gate one: not granted either).
    await callTool(call(agent), "object_schema", { namespace: "docs", operation: "object.action.export", materialize: true }, 10_000, undefined, readOnly);
    const read = await callTool(call(agent), "docs_export", { ref: "docs:document:doc_aaaaaaaaaaaaaaaaaaaa", format: "markdown" }, 10_000, undefined, readOnly);
    expect(text(read).error.code).toBe("consent_required");
  });
});
