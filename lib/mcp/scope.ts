// The OAuth scope wall of an MCP connection: a tool call that needs more scope than the connection was approved
// for is refused (insufficient_scope), the refusal audited, and an OAuth connection marked for step-up (its next
// refresh answers invalid_grant, so the client authorizes again for the added scope). Checked before a request
// runs (handler.ts, every call whose operation its name and input say) and, for an exact tool, again at the moment
// it runs, against the action it stands for then (server.ts): a batch that materializes a tool and calls it
// cannot slip past.
import { getDb, type Executor } from "@/db/client";
import type { AuthContext } from "@/lib/authz/context";
import { auditPrincipalOf } from "@/lib/authz/context";
import { recordAudit } from "@/lib/audit/record";
import { AppError } from "@/lib/errors";
import { protectedResourceMetadataUrl } from "./config";
import { requestStepUp } from "./oauth";

/** Header values are ASCII: quotes, backslashes, control and non-ASCII characters are replaced. */
export const quoted = (s: string) => s.replace(/…/g, "...").replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, "?");

export async function scopeRefusal(db: Executor, auth: AuthContext, scopes: string[], needed: string, tool: unknown): Promise<AppError> {
  const name = String(tool).slice(0, 80);
  const description = `This connection was approved for ${scopes.join(" ") || "no scope"}; ${name} needs ${needed}.`;
  const wanted = [...new Set([...scopes, needed])].join(" ");
  if (auth.kind === "actor" && auth.via === "mcp_oauth") await requestStepUp(db, auth.tenantId, auth.credentialId, wanted);
  await (await getDb()).transaction((tx) =>
    recordAudit(tx, {
      tenantId: auth.tenantId,
      event: "tool.call",
      principal: auditPrincipalOf(auth),
      requestId: auth.requestId,
      outcome: "deny",
      reason: "insufficient_scope",
      details: { tool: name, wall: "oauth_scope", required_scope: needed, granted_scopes: scopes },
    }),
  );
  return new AppError("insufficient_scope", description, {
    headers: {
      "WWW-Authenticate": `Bearer error="insufficient_scope", scope="${wanted}", resource_metadata="${protectedResourceMetadataUrl()}", error_description="${quoted(description)}"`,
    },
    details: { required_scope: needed, granted_scopes: scopes, tool: name },
  });
}
