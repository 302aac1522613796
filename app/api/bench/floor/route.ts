// POST /api/bench/floor?size=N — the floor of a tool call, for `npm run bench:load` only (lib/bench-floor.ts):
// served when the server runs with REALMGATE_BENCH_FLOOR=1; otherwise every method gets the unknown-route 404.
import { floorCall, floorServed } from "@/lib/bench-floor";
import { readJson } from "@/lib/http/body";
import { methodNotAllowed, route, unknownApiRoute } from "@/lib/http/route";

export const POST = route(async (req) => {
  if (!floorServed()) throw unknownApiRoute(req);
  const size = new URL(req.url).searchParams.get("size");
  return Response.json(await floorCall(await readJson(req), size === null ? 0 : Number(size)), { headers: { "cache-control": "no-store" } });
});

const notPost = methodNotAllowed(["POST"]);
export const GET = route(async (req) => {
  if (!floorServed()) throw unknownApiRoute(req);
  return notPost(req);
});
export const PUT = GET;
export const PATCH = GET;
export const DELETE = GET;
