// GET /api/v1/files/:id?by=&exp=&sig= — download a file through its signed, short-lived URL
import { getDb } from "@/db/client";
import { param, queryOf, route } from "@/lib/http/route";
import { redeemFileUrl } from "@/lib/tools/files";

export const GET = route(async (req, ctx) => {
  const q = queryOf(req);
  const id = param(ctx, "id");
  const file = await redeemFileUrl(await getDb(), { fileId: id, method: "GET", path: `/api/v1/files/${id}`, by: q.by ?? null, exp: q.exp ?? null, sig: q.sig ?? null });
  return new Response(Buffer.from(file.bytes), {
    headers: {
      "content-type": file.contentType,
      "content-disposition": `attachment; filename*=UTF-8''${encodeURIComponent(file.name)}`,
      "cache-control": "private, no-store",
      "x-content-type-options": "nosniff",
      etag: `"${file.sha256}"`,
    },
  });
});
