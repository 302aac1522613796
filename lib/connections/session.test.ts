// The API session's answers to a provider that says "too many" or fails, whatever its dialect: a 429 is
// `rate_limited` (as imported services answer), a 503 `provider_unavailable`; neither touches the account.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveAtDevIssuer, startDevMail, type DevMail } from "@/dev/fake-gmail";
import { connectedAccounts } from "@/db/schema";
import { envOverride, errorOf, inCall, makeTenant, refusingDelivery, userPrincipal } from "@/test-support";
import { env } from "@/lib/env";
import { openAccount } from "./session";
import { connectWith } from "./test-kit";

let dm: DevMail;
const envs = envOverride();
beforeAll(async () => {
  dm = await startDevMail({ appUrl: env().appUrl });
  envs.set(dm.env);
});
afterAll(async () => {
  envs.restore();
  await dm?.close();
});

describe("a provider that cannot serve the call now", () => {
  it("answers 429 as rate_limited and 503 as provider_unavailable, nothing retried, the account still active", async () => {
    const t = await makeTenant({ alice: "owner" });
    const { account } = await connectWith(t.db, t.users.alice!, { provider: "devmail" }, (url) => approveAtDevIssuer(url, { login: "alice" }));
    const profile = () =>
      inCall(t, userPrincipal(t, "alice"), refusingDelivery("mail"), async (ctx) => {
        const s = await openAccount(ctx, { api: "gmail", claims: ["gmail:read"], namespace: "mail", operation: "object.get", pinnedAccountId: null, selector: null });
        return s.call({ path: "/gmail/v1/users/me/profile" });
      });
    try {
      Object.assign(dm.gmail.faults, { status: 429 });
      const calls = [...dm.gmail.calls.values()].reduce((a, b) => a + b, 0);
      expect(await errorOf(profile())).toMatchObject({ code: "rate_limited", status: 429, details: { provider: "devmail", account_id: account.id, provider_status: 429, retried: false } });
      expect([...dm.gmail.calls.values()].reduce((a, b) => a + b, 0)).toBe(calls + 1);
      Object.assign(dm.gmail.faults, { status: 503 });
      expect(await errorOf(profile())).toMatchObject({ code: "provider_unavailable", status: 503, details: { provider_status: 503 } });
    } finally {
      Object.assign(dm.gmail.faults, { status: null });
    }
    expect(await profile()).toMatchObject({ emailAddress: "alice@acme.test" });
    const [row] = await t.db.select().from(connectedAccounts).where(eq(connectedAccounts.id, account.id));
    expect(row!.status).toBe("active");
  });
});
