// /api/* that matches no route — one clear JSON error instead of an HTML page
import { AppError } from "@/lib/errors";
import { route } from "@/lib/http/route";

const unknown = route((req) => {
  const path = new URL(req.url).pathname;
  throw new AppError("not_found", `No API route ${req.method} ${path}.`, { details: { method: req.method, path } });
});

export { unknown as GET, unknown as POST, unknown as PUT, unknown as PATCH, unknown as DELETE };
