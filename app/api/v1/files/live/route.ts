// GET /api/v1/files/live?… — a provider-backed file through its signed link: both gates again, then the current
// bytes streamed from the provider. PUT — bytes to an upload slot, handed to the provider the same way.
import { getDb } from "@/db/client";
import { liveFileResponse } from "@/lib/delivery/live-response";
import { MAX_LIVE_BYTES } from "@/lib/delivery/live-urls";
import { readBodyBytes } from "@/lib/http/body";
import { route } from "@/lib/http/route";
import { redeemLiveUrl } from "@/lib/tools/files";

export const GET = route(async (req) => {
  const r = await redeemLiveUrl(await getDb(), req.url, { method: req.method });
  if (r.kind !== "download") throw new Error("a GET link redeemed as an upload");
  return liveFileResponse(r.file, req.method);
});

export const PUT = route(async (req) => {
  const bytes = await readBodyBytes(req, MAX_LIVE_BYTES);
  const r = await redeemLiveUrl(await getDb(), req.url, { method: "PUT", body: { bytes, contentType: req.headers.get("content-type") ?? "application/octet-stream" } });
  return Response.json(r.kind === "upload" ? r.result : {}, { headers: { "cache-control": "no-store" } });
});
