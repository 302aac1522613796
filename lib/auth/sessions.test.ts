import { describe, expect, it } from "vitest";
import { makeTenant } from "@/test-support";
import { endAllSessions, endSession, newSessionId, sessionIsLive, sessionVersionOf } from "./sessions";

describe("server-side session state", () => {
  it("a session ends at sign-out; another session of the same person stays live", async () => {
    const t = await makeTenant({ alice: "owner" });
    const userId = t.users.alice!.userId;
    const v = (await sessionVersionOf(t.db, userId))!;
    const [one, two] = [newSessionId(), newSessionId()];
    expect(await sessionIsLive(t.db, { userId, sessionId: one, version: v })).toBe(true);
    await endSession(t.db, { userId, sessionId: one, expiresAt: new Date(Date.now() + 3_600_000) });
    expect(await sessionIsLive(t.db, { userId, sessionId: one, version: v })).toBe(false);
    expect(await sessionIsLive(t.db, { userId, sessionId: two, version: v })).toBe(true);
  });

  it("sign out of all devices ends every session signed in before it, and sessions without an id are not trusted", async () => {
    const t = await makeTenant({ alice: "owner" });
    const userId = t.users.alice!.userId;
    const v = (await sessionVersionOf(t.db, userId))!;
    const s = newSessionId();
    await endAllSessions(t.db, { userId, tenantId: t.tenantId, requestId: "req_x" });
    expect(await sessionIsLive(t.db, { userId, sessionId: s, version: v })).toBe(false);
    expect(await sessionIsLive(t.db, { userId, sessionId: newSessionId(), version: v + 1 })).toBe(true);
    expect(await sessionIsLive(t.db, { userId, sessionId: undefined, version: undefined })).toBe(false);
  });
});
