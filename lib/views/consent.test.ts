// The consent page's view of the call that asked: items by their names (with the grantor's authority), the call
// as its realm presents it, a document's changes before → after, the generic lines, and the 8 KB bound.
import { beforeAll, describe, expect, it } from "vitest";
import { getConsentRequest, namedRefsOf } from "@/lib/authz/consent";
import { dispatch } from "@/lib/tools/dispatch";
import { call, errorOf, makeActor, makeTenant, type TestTenant } from "@/test-support";
import { presentedCall, type PresentedCall } from "./consent";

type Json = Record<string, unknown>;
let t: TestTenant;
let doc: string;
let thread: string;

const up = async (who: TestTenant["users"][string], kind: string, fields: Json, ref?: string) =>
  ((await dispatch(call(who), "upsert_object", { namespace: kind.split(".")[0], kind, fields, ...(ref ? { ref } : {}) })) as Json).ref as string;
/** The agent's call, refused for want of a grant: the consent request it made, as alice's page reads it. */
async function asked(tool: string, input: Json) {
  const agent = await makeActor(t, t.users.alice!, "Helper");
  const id = (await errorOf(dispatch(call(agent), tool, input))).details.consent_request_id as string;
  const request = await getConsentRequest(t.db, t.users.alice!, id);
  const items = await namedRefsOf(t.db, t.users.alice!, request);
  return { request, items, presented: await presentedCall(t.db, t.users.alice!, request, items) };
}
const lines = (p: PresentedCall | null) => (p?.kind === "presented" ? Object.fromEntries(p.lines.map((l) => [l.label, l.value])) : {});

beforeAll(async () => {
  t = await makeTenant();
  doc = await up(t.users.alice!, "docs.document", { title: "Q3 planning" });
  thread = await up(t.users.alice!, "docs.comment_thread", { document: doc, body: "Ship the agent gateway by October" });
});

describe("the request that asked for this", () => {
  it("a docs reply shows the thread by its label, and the reply text as written", async () => {
    const reply = "On it <b>now</b> — shipping Friday.";
    const { items, presented } = await asked("object_action", { ref: thread, action: "reply_comment", payload: { body: reply } });
    expect(items).toEqual([expect.objectContaining({ ref: thread, visible: true, label: expect.stringContaining("Ship the agent gateway") })]);
    expect(items[0]!.label).not.toContain(thread);
    expect(presented).toMatchObject({ kind: "presented", title: "Reply in a comment thread" });
    expect(lines(presented).Thread).toContain("Ship the agent gateway");
    expect(lines(presented).Thread).not.toContain("docs:thread:");
    expect(lines(presented).Reply).toBe(reply);
  });

  it("a document's change shows each field before → after, as the grantor reads it now", async () => {
    const { presented } = await asked("upsert_object", { namespace: "docs", kind: "docs.document", ref: doc, fields: { title: "Q4 planning", status: "review" } });
    expect(presented).toMatchObject({ kind: "presented", title: "Change a document" });
    expect(lines(presented)).toMatchObject({ Document: expect.stringContaining("Q3 planning"), Title: "Q3 planning → Q4 planning", Status: "draft → review" });
  });

  it("an operation without a presenter falls back to its payload as label: value lines", async () => {
    const { presented } = await asked("object_action", { ref: thread, action: "resolve_thread", payload: { resolution_note: "Done in v2" } });
    expect(presented?.kind).toBe("presented");
    expect(lines(presented)).toMatchObject({ "Resolution note": "Done in v2", On: expect.stringContaining("Ship the agent gateway") });
    // Something alice cannot see is said to be so, never shown as its bare ref.
    const missing = doc.replace(/.$/, doc.endsWith("a") ? "b" : "a");
    const unseen = await asked("get_object", { ref: missing });
    expect(lines(unseen.presented).On).toBe("something you cannot see");
    expect(JSON.stringify(unseen.presented)).not.toContain(missing);
  });

  it("a board move names the card and the column it goes to", async () => {
    const board = await up(t.users.alice!, "board.board", { title: "Launch" });
    await up(t.users.alice!, "board.column", { board, title: "Doing" });
    const done = await up(t.users.alice!, "board.column", { board, title: "Done" });
    const card = await up(t.users.alice!, "board.card", { board, column: "Doing", title: "Write the press note" });
    const { presented } = await asked("object_action", { ref: card, action: "move_card", payload: { column: done } });
    expect(presented).toMatchObject({ kind: "presented", title: "Move a card to another column" });
    expect(lines(presented)).toMatchObject({ Card: expect.stringContaining("Write the press note"), "To column": expect.stringContaining("Done") });
    expect(lines(presented)["To column"]).not.toContain("board:column:");
  });

  it("keeps an input of 9 KB only as a note that it was too large", async () => {
    const big = "x".repeat(9 * 1024);
    const { request, presented } = await asked("upsert_object", { namespace: "memory", kind: "memory.item", fields: { text: big } });
    expect(request.input).toMatchObject({ too_large: true });
    expect(JSON.stringify(request.input)).not.toContain("xxxx");
    expect(presented).toEqual({ kind: "too_large", bytes: expect.any(Number) });
    expect((presented as { bytes: number }).bytes).toBeGreaterThan(8 * 1024);
    // A small input is kept, and shown.
    const small = await asked("upsert_object", { namespace: "memory", kind: "memory.item", fields: { text: "Remember the window seat" } });
    expect(lines(small.presented).Text).toBe("Remember the window seat");
  });
});
