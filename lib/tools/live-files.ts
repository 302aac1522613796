// The provider-backed link as HTTP (the route is this and nothing else): a GET streams the file the realm fetches,
// a PUT hands the body (bounded) to the realm's upload. Redemption re-runs both gates (files.ts `redeemLiveUrl`).
import type { Db } from "@/db/client";
import { liveFileResponse } from "@/lib/delivery/live-response";
import { MAX_LIVE_BYTES } from "@/lib/delivery/live-urls";
import { AppError } from "@/lib/errors";
import { readBoundedBytes } from "@/lib/input/bytes";
import { redeemLiveUrl } from "./files";

export async function serveLiveUrl(db: Db, req: Request): Promise<Response> {
  if (req.method === "PUT") {
    const bytes = await readBoundedBytes(req, MAX_LIVE_BYTES, () => new AppError("payload_too_large", `An upload is limited to ${MAX_LIVE_BYTES} bytes.`, { details: { max_bytes: MAX_LIVE_BYTES } }));
    if (bytes.byteLength === 0) throw new AppError("invalid_input", "The upload is empty: PUT the file's bytes to the slot.");
    const r = await redeemLiveUrl(db, req.url, { method: "PUT", body: { bytes, contentType: req.headers.get("content-type") ?? "application/octet-stream" } });
    return Response.json(r.kind === "upload" ? r.result : {}, { headers: { "cache-control": "no-store" } });
  }
  const r = await redeemLiveUrl(db, req.url, { method: req.method });
  // verifyLiveUrl only lets a GET (or HEAD) link through here, so this is a download.
  return r.kind === "download" ? liveFileResponse(r.file, req.method) : Response.json(r.result);
}
