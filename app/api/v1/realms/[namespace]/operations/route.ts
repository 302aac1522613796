// GET /api/v1/realms/:namespace/operations — an imported service's operations with the owner's curation (?q, ?hidden, ?offset, ?limit)
// PATCH — curate operations: `{changes: [{action, hidden?, label?, keywords?, risk?, exact_grant_only?}]}`
import { getDb } from "@/db/client";
import { parseWith } from "@/lib/errors";
import { parseBody } from "@/lib/http/body";
import { param, queryOf, withRole } from "@/lib/http/route";
import { curateOperations, curationBody, listOperations, listOperationsQuery } from "@/lib/openapi-admin/curation";

export const GET = withRole(["owner"], async (req, ctx) =>
  Response.json(await listOperations(await getDb(), ctx.user, param(ctx, "namespace"), parseWith(listOperationsQuery, queryOf(req), "query"))),
);

export const PATCH = withRole(["owner"], async (req, ctx) =>
  Response.json(await curateOperations(await getDb(), ctx.user, param(ctx, "namespace"), await parseBody(req, curationBody))),
);
