// GET /api/v1/refs/describe?ref=<ref>&ref=<ref>… — refs as the signed-in person reads them (people only, at most 50)
import { getDb } from "@/db/client";
import { withUser } from "@/lib/http/route";
import { describeRefsFor, parseDescribeQuery } from "@/lib/views/refs";

export const GET = withUser(async (req, { user }) => Response.json(await describeRefsFor(await getDb(), user, parseDescribeQuery(new URL(req.url).searchParams))));
