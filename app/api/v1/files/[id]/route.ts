// GET /api/v1/files/:id?by=&exp=[&ref=]&sig= — download a file through its signed, short-lived URL
import { getDb } from "@/db/client";
import { route } from "@/lib/http/route";
import { redeemSignedUrl } from "@/lib/tools/files";

export const GET = route(async (req) => {
  const file = await redeemSignedUrl(await getDb(), req.url, { method: req.method });
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
