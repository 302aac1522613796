// GET /api/v1/realms/import — the tenant's imported OpenAPI services (owner)
// POST — import or re-import an OpenAPI 3.0/3.1 document as a realm: `{namespace, spec | spec_url, spec_files?,
// base_url?, title?, description?, keywords?, credential?, dry_run?}` (docs/openapi-import.md). Documents up to
// 50 MB, so this route reads a larger body than the 1 MiB default.
import { getDb } from "@/db/client";
import { parseBody } from "@/lib/http/body";
import { withRole } from "@/lib/http/route";
import { importBody, importRealm, listImportedRealms, MAX_IMPORT_BODY_BYTES } from "@/lib/openapi-admin/import";

export const GET = withRole(["owner"], async (_req, { user }) => Response.json({ realms: await listImportedRealms(await getDb(), user) }));

export const POST = withRole(["owner"], async (req, { user }) => {
  const result = await importRealm(await getDb(), user, await parseBody(req, importBody, MAX_IMPORT_BODY_BYTES));
  return Response.json(result, { status: result.applied && !result.exists ? 201 : 200 });
});
