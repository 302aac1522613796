// Who is calling: always derived from the session or a bearer token, never from a request body.
import type { ActorKind, Role } from "@/db/schema";
import type { Principal } from "@/lib/realms/contract";

export type UserContext = {
  kind: "user";
  tenantId: string;
  userId: string;
  role: Role;
  via: "session" | "api_key";
  requestId: string;
  /** The caller's own X-Request-Id, when it sent a sane one (recorded for correlation; never our request id). */
  clientRequestId?: string;
};

/** A delegated actor: an agent, an MCP client or an automation — never rewritten into its user. */
export type ActorContext = {
  kind: "actor";
  tenantId: string;
  actorId: string;
  actorKind: ActorKind;
  actorName: string;
  /** The user who created the actor and approves its grants. */
  grantorId: string;
  via: "actor_token" | "mcp_oauth";
  /** The token or OAuth access token used (for audit). */
  credentialId: string;
  requestId: string;
  /** The caller's own X-Request-Id, when it sent a sane one (recorded for correlation; never our request id). */
  clientRequestId?: string;
};

export type AuthContext = UserContext | ActorContext;

export const principalOf = (ctx: AuthContext): Principal =>
  ctx.kind === "user"
    ? { type: "user", userId: ctx.userId }
    : { type: "actor", actorId: ctx.actorId, grantorId: ctx.grantorId, actorKind: ctx.actorKind };

export const auditPrincipalOf = (ctx: AuthContext) =>
  ctx.kind === "user" ? ({ type: "user", userId: ctx.userId } as const) : ({ type: "actor", actorId: ctx.actorId, grantorId: ctx.grantorId } as const);
