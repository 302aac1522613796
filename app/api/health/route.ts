// GET /api/health — liveness and which database this instance uses
import { health } from "@/lib/health";
import { route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const GET = route(async () => {
  const result = await health();
  return Response.json(result, { status: result.ok ? 200 : 503, headers: { "cache-control": "no-store" } });
});
