// GET /api/v1/tenant/settings — the workspace's settings for agents (the catalog budget, with its bounds), for any member
// PATCH — owners set the catalog budget: {catalog_budget_bytes} a whole number from 8192 to 49152 (audited tenant.settings_changed)
import { getDb } from "@/db/client";
import { parseBody } from "@/lib/http/body";
import { withRole, withUser } from "@/lib/http/route";
import { changeTenantSettings, readTenantSettings, tenantSettingsBody } from "@/lib/views/tenant-settings";

export const GET = withUser(async (_req, { user }) => Response.json(await readTenantSettings(await getDb(), user)));

export const PATCH = withRole(["owner"], async (req, { user }) => {
  const body = await parseBody(req, tenantSettingsBody);
  return Response.json(await changeTenantSettings(await getDb(), user, body));
});
