// GET /api/v1/connections/callback — where every provider sends the person back (the exact redirect URI).
// Completes the flow for the signed-in person and returns them to where they started, with the outcome.
import { getDb } from "@/db/client";
import { completeConnection, callbackQuery } from "@/lib/connections/flows";
import { env } from "@/lib/env";
import { isAppError, parseWith } from "@/lib/errors";
import { safeReturnPath } from "@/lib/input/return-to";
import { authenticate, queryOf, route } from "@/lib/http/route";

/** Same-origin path plus outcome parameters, as an absolute URL for the redirect. */
function back(path: string, params: Record<string, string>): Response {
  const url = new URL(safeReturnPath(path, "/connections"), env().appUrl);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return new Response(null, { status: 303, headers: { location: url.toString(), "cache-control": "no-store" } });
}

export const GET = route(async (req, { requestId }) => {
  const auth = await authenticate(req, requestId).catch((err: unknown) => {
    if (isAppError(err) && err.code === "unauthenticated") return null;
    throw err;
  });
  if (!auth || auth.kind !== "user") {
    // Signed out mid-flow: sign in, then come back to this very answer (its state is still bound to the person).
    const here = new URL(req.url);
    return back("/signin", { callbackUrl: `${here.pathname}${here.search}` });
  }
  try {
    const done = await completeConnection(await getDb(), auth, parseWith(callbackQuery, queryOf(req), "callback"));
    return back(done.returnTo, { connection: done.intent, connected_account: done.account.id });
  } catch (err) {
    if (!isAppError(err)) throw err;
    const code = typeof err.details.flow_error === "string" ? err.details.flow_error : err.code;
    const returnTo = typeof err.details.return_to === "string" ? err.details.return_to : "/connections";
    return back(returnTo, { connection_error: code });
  }
});
