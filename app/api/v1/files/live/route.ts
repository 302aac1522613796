// GET /api/v1/files/live?… — a provider-backed file through its signed link: both gates again, then the current
// bytes streamed from the provider. PUT — bytes to an upload slot, handed to the provider the same way.
import { getDb } from "@/db/client";
import { route } from "@/lib/http/route";
import { serveLiveUrl } from "@/lib/tools/live-files";

export const GET = route(async (req) => serveLiveUrl(await getDb(), req));
export const PUT = route(async (req) => serveLiveUrl(await getDb(), req));
