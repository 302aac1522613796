// The authorization context a remote provider receives with every call (docs/provider-protocol.md): who calls
// (the agent, or a person acting directly), whose authority it projects (the grantor: id and email — never a
// session), the operation gate one allowed and the grant's scope, a one-use request id and a 5-minute life.
import { and, eq } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { actors, memberships, users } from "@/db/schema";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import type { Principal, ResourceScope } from "@/lib/realms/contract";
import type { AuthContext } from "@/provider-kit/types";

export const CONTEXT_TTL_MS = 5 * 60 * 1000;

export type ContextInput = {
  tx: Executor;
  tenantId: string;
  registrationId: string;
  manifestVersion: string;
  principal: Principal;
  operation: string;
  scope: ResourceScope | null;
  now?: Date;
};

export async function authorizationContext(c: ContextInput): Promise<AuthContext> {
  const userId = c.principal.type === "user" ? c.principal.userId : c.principal.grantorId;
  const actorId = c.principal.type === "actor" ? c.principal.actorId : "";
  // One statement: the person (a member of this tenant) and, for an agent, the agent.
  const [row] = await c.tx
    .select({ id: users.id, email: users.email, name: users.name, actorId: actors.id, actorKind: actors.kind, actorName: actors.name })
    .from(users)
    .innerJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.tenantId, c.tenantId)))
    .leftJoin(actors, and(eq(actors.id, actorId), eq(actors.tenantId, c.tenantId)))
    .where(eq(users.id, userId))
    .limit(1);
  if (!row) throw new AppError("forbidden", "The person this call acts for is no longer in the workspace.");
  if (c.principal.type === "actor" && !row.actorId) throw new AppError("forbidden", "The agent making this call is gone.");
  const actor: AuthContext["actor"] = row.actorId ? { id: row.actorId, kind: row.actorKind!, name: row.actorName! } : { id: row.id, kind: "person", name: row.name };
  const person = row;
  // A whole second: the provider compares against its own clock.
  const issued = new Date(Math.floor((c.now ?? new Date()).getTime() / 1000) * 1000);
  return {
    tenant_id: c.tenantId,
    registration_id: c.registrationId,
    actor,
    grantor: { id: person.id, email: person.email },
    operation: c.operation,
    scope: c.scope && c.scope.refs ? { refs: [...c.scope.refs] } : null,
    request_id: newId("req"),
    issued_at: issued.toISOString(),
    expires_at: new Date(issued.getTime() + CONTEXT_TTL_MS).toISOString(),
    manifest_version: c.manifestVersion,
  };
}
