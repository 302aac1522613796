import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { userForApiKey } from "@/lib/authz/api-keys";
import { userForDevSignIn } from "@/lib/authz/users";
import { seedDemo } from "./seed";

describe("demo seed", () => {
  it("creates acme with alice, bob and sam, and is idempotent", async () => {
    const db = await getDb();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "rg-seed-"));
    const first = await seedDemo(db, { dataDir, appUrl: "http://localhost:3000" });
    const second = await seedDemo(db, { dataDir, appUrl: "http://localhost:3000" });
    expect(second).toEqual(first); // same passwords and keys: nothing rotated by a restart
    const onDisk = JSON.parse(fs.readFileSync(path.join(dataDir, "demo.json"), "utf8"));
    expect(onDisk.tenant.slug).toBe("acme");
    expect(Object.fromEntries(Object.entries(onDisk.users).map(([k, u]) => [k, (u as { role: string }).role]))).toEqual({
      alice: "owner",
      bob: "member",
      sam: "support",
    });
    for (const u of Object.values(first.users)) {
      expect((await userForApiKey(db, u.api_key))?.role).toBe(u.role);
      expect((await userForDevSignIn(db, u.email, u.password))?.email).toBe(u.email);
    }
  });

  it("replaces a key that no longer works", async () => {
    const db = await getDb();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "rg-seed-"));
    const first = await seedDemo(db, { dataDir, appUrl: "http://x" });
    const file = path.join(dataDir, "demo.json");
    const edited = JSON.parse(fs.readFileSync(file, "utf8"));
    edited.users.bob.api_key = "rgk_lost";
    fs.writeFileSync(file, JSON.stringify(edited));
    const again = await seedDemo(db, { dataDir, appUrl: "http://x" });
    expect(again.users.bob!.api_key).not.toBe("rgk_lost");
    expect(again.users.alice!.api_key).toBe(first.users.alice!.api_key);
    expect((await userForApiKey(db, again.users.bob!.api_key))?.userId).toBe(first.users.bob!.user_id);
  });
});

describe("demo steps", () => {
  it("are the registered realms' demo steps, in the registry's order (memory, docs, board), then the demo's modes, the agent, and the remote provider's token", async () => {
    const { demoSeedSteps } = await import("./index");
    const { seedDemoAgent } = await import("./agent");
    const { seedDemoModes } = await import("./modes");
    const { seedDemo: memory } = await import("@/lib/realms/memory/demo");
    const { seedDemo: docs } = await import("@/lib/realms/docs/demo");
    const { seedDemo: board } = await import("@/lib/realms/board/demo");
    const { seedDemoRemote } = await import("./remote");
    expect(demoSeedSteps).toEqual([memory, docs, board, seedDemoModes, seedDemoAgent, seedDemoRemote]);
  });
});

describe("demo agent", () => {
  it("acts for alice with the read operations, board actions, and no docs actions", async () => {
    const { demoSeedSteps } = await import("./index");
    const { dispatch } = await import("@/lib/tools/dispatch");
    const { actorForToken } = await import("@/lib/authz/actors");
    const db = await getDb();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "rg-seed-"));
    const demo = await seedDemo(db, { dataDir, appUrl: "http://x", steps: demoSeedSteps });
    const again = await seedDemo(db, { dataDir, appUrl: "http://x", steps: demoSeedSteps });
    expect(again.agent!.token).toBe(demo.agent!.token);
    const ctx = { ...(await actorForToken(db, demo.agent!.token))!, requestId: "req_demo_agent_1" };
    expect(ctx.grantorId).toBe(demo.users.alice!.user_id);
    const docs = (await dispatch(ctx, "search_objects", { namespace: "docs", query: "Q3" })) as { items: { ref: string; kind: string }[] };
    expect(docs.items.length).toBeGreaterThan(0);
    const thread = docs.items.find((i) => i.kind === "docs.comment_thread");
    const docRef = docs.items.find((i) => i.kind === "docs.document")!.ref;
    await expect(dispatch(ctx, "object_action", { ref: thread?.ref ?? docRef, action: thread ? "resolve_thread" : "export", payload: thread ? {} : { format: "text" } })).rejects.toMatchObject({
      code: "consent_required",
    });
    // The demo asks each time before deleting a document or sending mail: the call answers with an approval to decide.
    const asked = await dispatch(ctx, "delete_object", { ref: docRef }).catch((e: unknown) => e);
    expect(asked).toMatchObject({ code: "approval_required", details: { approval_url: expect.stringMatching(/\/approvals\/apr_/) } });
    // Denied again, so the demo tenant (which e2e runs may share) keeps no call waiting from this test.
    const { decideApproval } = await import("@/lib/approvals/decide");
    const alice = { tenantId: demo.tenant.id, userId: demo.users.alice!.user_id, role: "owner" as const, requestId: "req_demo_deny" };
    await decideApproval(db, alice, (asked as { details: { approval_id: string } }).details.approval_id, { decision: "deny", note: "test clean-up" });
    const { operationStates } = await import("@/lib/authz/policy");
    const mail = await operationStates(db, demo.tenant.id, demo.users.alice!.user_id, "mail");
    expect(mail.filter((s) => s.mode === "ask").map((s) => s.operation)).toEqual(expect.arrayContaining(["object.action.send", "object.action.reply"]));
  });
});
