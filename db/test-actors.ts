// Test fixtures for delegated actors: an actor of a test user, its AuthContext, and grants for it.
import type { ActorContext, UserContext } from "@/lib/authz/context";
import { createActor } from "@/lib/authz/actors";
import { createGrantTx } from "@/lib/authz/grants";
import type { ResourceScope } from "@/db/schema";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import type { TestTenant } from "./test-fixtures";

export async function makeActor(t: TestTenant, grantor: UserContext, name = "Test Agent"): Promise<ActorContext & { token: string }> {
  const { actor, token } = await createActor(t.db, grantor, { name, kind: "hosted_agent", issue_token: true, token_expires_in_days: null });
  return {
    kind: "actor",
    tenantId: t.tenantId,
    actorId: actor.id,
    actorKind: "hosted_agent",
    actorName: name,
    grantorId: grantor.userId,
    via: "actor_token",
    credentialId: token!.id,
    requestId: newId("req"),
    token: token!.token,
  };
}

export async function grant(
  t: TestTenant,
  grantor: UserContext,
  actorId: string,
  namespace: string,
  operations: string[],
  opts: { expiresAt?: Date | null; scope?: ResourceScope | null } = {},
) {
  return t.db.transaction((tx) =>
    createGrantTx(tx, grantor, { actorId, namespace, operations, resourceScope: opts.scope ?? null, expiresAt: opts.expiresAt ?? null }),
  );
}

/** A fresh request id per call, as every real request has. */
export const call = <C extends { requestId: string }>(ctx: C): C => ({ ...ctx, requestId: newId("req") });

/** The outcome of a call as a test reads it: "ok", or the AppError code (anything else is unexpected). */
export const codeOf = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
    return "ok";
  } catch (e) {
    return e instanceof AppError ? e.code : `unexpected: ${(e as Error).message}`;
  }
};

/** The AppError a call ends with (a test failure if it succeeds or throws anything else). */
export const errorOf = async (p: Promise<unknown>): Promise<AppError> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error("expected an error");
};
