import { describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { makeTenant } from "@/test-support";
import { newId } from "@/lib/ids";
import { hashPassword } from "./secrets";
import { primaryMembership, userForDevSignIn, userForOidcSignIn } from "./users";
import { users } from "@/db/schema";
import { eq } from "drizzle-orm";

const issuer = "https://issuer.example.test";

describe("OpenID Connect sign-in", () => {
  it("links a verified email to the existing user, then recognises the subject", async () => {
    const t = await makeTenant({ alice: "owner" });
    const alice = t.users.alice!;
    const subject = newId("usr");
    const id = await userForOidcSignIn(t.db, { issuer, subject, email: alice.email.toUpperCase(), emailVerified: true, name: "A" });
    expect(id).toBe(alice.userId);
    expect(await userForOidcSignIn(t.db, { issuer, subject, email: "changed@example.test", emailVerified: true })).toBe(alice.userId);
  });

  it("never links by an unverified email: a new user gets their own workspace as owner", async () => {
    const t = await makeTenant({ alice: "owner" });
    const id = await userForOidcSignIn(t.db, { issuer, subject: newId("usr"), email: t.users.alice!.email, emailVerified: false });
    expect(id).not.toBe(t.users.alice!.userId);
    const m = await primaryMembership(t.db, id);
    expect(m?.role).toBe("owner");
    expect(m?.tenantId).not.toBe(t.tenantId);
  });
});

describe("development sign-in", () => {
  it("accepts the right password only", async () => {
    const t = await makeTenant({ dev: "member" });
    const db = await getDb();
    await db.update(users).set({ passwordHash: await hashPassword("correct horse") }).where(eq(users.id, t.users.dev!.userId));
    expect((await userForDevSignIn(db, t.users.dev!.email, "correct horse"))?.id).toBe(t.users.dev!.userId);
    expect(await userForDevSignIn(db, t.users.dev!.email, "wrong")).toBeNull();
    expect(await userForDevSignIn(db, "nobody@example.test", "x")).toBeNull();
  });
});
