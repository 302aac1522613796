// /api/* that matches no route — one clear JSON error instead of an HTML page
import { route, unknownApiRoute } from "@/lib/http/route";

const unknown = route((req) => {
  throw unknownApiRoute(req);
});

export { unknown as GET, unknown as POST, unknown as PUT, unknown as PATCH, unknown as DELETE };
