// One derivation of a call's realm and operation, for the dispatcher and the MCP transport's scope check.
import { describe, expect, it } from "vitest";
import { SCOPE_READ, SCOPE_WRITE } from "@/lib/mcp/config";
import { scopeForCall } from "@/lib/mcp/handler";
import { mcpTool } from "@/lib/mcp/server";
import { call, errorOf, makeActor, makeTenant } from "@/test-support";
import { dispatch } from "./dispatch";
import { toolEntry } from "./catalog";
import { tools } from "./defs";
import { resolveOperation } from "./operation";
import { toolDef, toolNames } from "./schemas";

const codeOf = (r: ReturnType<typeof resolveOperation>) => ("error" in r ? r.error.code : "ok");

describe("resolveOperation", () => {
  it("reads the namespace from the ref, or the namespace; none is every realm for the describing tools", () => {
    expect(resolveOperation("get_object", { ref: "docs:doc:doc_1" })).toEqual({ namespace: "docs", ref: "docs:doc:doc_1", operation: "object.get" });
    expect(resolveOperation("list_objects", { namespace: "board", kind: "board.card" })).toEqual({ namespace: "board", ref: null, operation: "object.list" });
    expect(resolveOperation("object_action", { namespace: "docs", action: "export" })).toEqual({ namespace: "docs", ref: null, operation: "object.action.export" });
    expect(resolveOperation("provider_about", {})).toEqual({ namespace: null, ref: null, operation: "provider.about" });
  });

  it("says what it cannot resolve, with the operation when the tool alone names it", () => {
    const mismatch = resolveOperation("get_object", { ref: "docs:doc:doc_1", namespace: "board" });
    expect(mismatch).toMatchObject({ operation: "object.get", error: { code: "invalid_input" } });
    expect(resolveOperation("delete_object", {})).toMatchObject({ operation: "object.delete", error: { code: "invalid_input", message: "delete_object needs a ref, or a kind and a selector." } });
    // Each tool says what it needs: a search names a realm or a kind, never a ref or a selector.
    expect(resolveOperation("search_objects", { query: "coffee" })).toMatchObject({ error: { code: "invalid_input", message: "search_objects needs a namespace, or a kind (its realm comes first, as in board.card)." } });
    expect(resolveOperation("object_action", { action: "export" })).toMatchObject({ error: { message: "object_action needs a ref, or a kind and a selector (an action on no object: the namespace)." } });
    expect(resolveOperation("get_object", {})).toMatchObject({ error: { message: "get_object needs a ref, or a kind and a selector." } });
    // A kind names its realm; a namespace that disagrees with it is refused.
    expect(resolveOperation("delete_object", { kind: "memory.item", selector: { text: "tea" } })).toMatchObject({ namespace: "memory", ref: null, operation: "object.delete" });
    expect(resolveOperation("upsert_object", { kind: "memory.item", namespace: "docs", fields: {} })).toMatchObject({ operation: "object.upsert", error: { code: "invalid_input" } });
    expect(codeOf(resolveOperation("get_object", { ref: "no namespace" }))).toBe("invalid_ref");
    expect(resolveOperation("object_action", { namespace: "docs" })).toMatchObject({ operation: null, error: { code: "invalid_input" } });
    expect(resolveOperation("drop_tables", {})).toMatchObject({ operation: null, error: { code: "not_found" } });
    expect(resolveOperation("list_objects", "not an object")).toMatchObject({ operation: "object.list", error: { code: "invalid_input" } });
  });
});

describe("a call that names a realm but not its target", () => {
  it("says what is missing: the kind (with the kinds that have selectors), or the selector", async () => {
    const t = await makeTenant();
    const noKind = await errorOf(dispatch(t.users.alice!, "get_object", { namespace: "board", selector: { title: "Launch" } }));
    expect(noKind).toMatchObject({ code: "invalid_input", details: { field: "kind", kinds: expect.arrayContaining(["board.card", "board.column"]) } });
    expect(noKind.message).toMatch(/^Give a ref, or a kind with a selector: this call has no kind \(kinds with selectors in board: .*board\.card/);
    const noSelector = await errorOf(dispatch(t.users.alice!, "get_object", { namespace: "board", kind: "board.card" }));
    expect(noSelector).toMatchObject({ code: "invalid_input", message: "Give a ref, or a kind with a selector: this call has no selector.", details: { field: "selector" } });
  });
});

describe("the MCP scope of a call, from the same derivation", () => {
  it("base tools by their operation's risk; actions by the realm's; unknown or unresolvable: the dispatcher refuses", async () => {
    const t = await makeTenant();
    expect(await scopeForCall(t.db, t.tenantId, "list_objects", {})).toBe(SCOPE_READ);
    expect(await scopeForCall(t.db, t.tenantId, "delete_object", { ref: 42 })).toBe(SCOPE_WRITE);
    expect(await scopeForCall(t.db, t.tenantId, "object_action", { ref: "docs:thread:thr_x", action: "reply_comment" })).toBe(SCOPE_WRITE);
    expect(await scopeForCall(t.db, t.tenantId, "object_action", { ref: "docs:doc:doc_x", action: "export" })).toBe(SCOPE_READ);
    expect(await scopeForCall(t.db, t.tenantId, "object_action", { namespace: "docs", action: "no_such_action" })).toBeNull();
    expect(await scopeForCall(t.db, t.tenantId, "object_action", { ref: "docs:thread:thr_x" })).toBeNull();
    expect(await scopeForCall(t.db, t.tenantId, "drop_tables", {})).toBeNull();
  });

  it("an exact tool of the caller's working set needs its action's scope (a read-only connection cannot call an exact write)", async () => {
    const t = await makeTenant();
    const agent = await makeActor(t, t.users.alice!);
    const other = await makeActor(t, t.users.alice!);
    await dispatch(call(agent), "object_schema", { namespace: "docs", operation: "object.action.reply_comment", materialize: true });
    await dispatch(call(agent), "object_schema", { namespace: "docs", operation: "object.action.export", materialize: true });
    expect(await scopeForCall(t.db, t.tenantId, "docs_reply_comment", {}, agent.actorId)).toBe(SCOPE_WRITE);
    expect(await scopeForCall(t.db, t.tenantId, "docs_export", {}, agent.actorId)).toBe(SCOPE_READ);
    // Another agent has no such tool (the dispatcher answers it is unknown); without an actor, nothing is looked up.
    expect(await scopeForCall(t.db, t.tenantId, "docs_reply_comment", {}, other.actorId)).toBeNull();
    expect(await scopeForCall(t.db, t.tenantId, "docs_reply_comment", {})).toBeNull();
  });
});

describe("the tool definitions", () => {
  it("are the nine tools, each once, and carry their MCP hints", () => {
    expect(toolNames).toEqual(["provider_about", "object_schema", "list_objects", "search_objects", "get_object", "object_action", "upsert_object", "host_file", "delete_object"]);
    expect(new Set(tools.map((x) => x.name)).size).toBe(9);
    expect(toolDef("delete_object").annotations).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(toolDef("list_objects").annotations).toEqual({ readOnlyHint: true });
    // object_action's hints depend on the caller's realms (toolsFor, tested in lib/mcp/annotations.test.ts).
    expect(toolDef("object_action").annotations).toBeUndefined();
    expect(mcpTool(toolEntry("get_object"), { readOnlyHint: true }).annotations).toEqual({ readOnlyHint: true });
  });
});
