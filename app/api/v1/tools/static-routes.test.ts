// Each of the nine tools has a static route of its own (found by Next.js before the dynamic `[tool]` one, without
// matching a dynamic segment on every call); all are built by ./tool-route.ts. Each must run exactly its own tool,
// answer other methods 405, and `[tool]` must still run whatever name its path carries.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { makeActor, makeTenant } from "@/test-support";
import { toolNames } from "@/lib/tools/schemas";

const here = path.dirname(new URL(import.meta.url).pathname);
type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
type Route = Record<"POST" | "GET" | "PUT" | "PATCH" | "DELETE", Handler>;

/** A call whose input every tool refuses (a namespace must be text): its answer names the tool that refused it. */
const call = (token: string, name: string, method = "POST") =>
  new Request(`http://realmgate.test/api/v1/tools/${name}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(method === "POST" ? { body: JSON.stringify({ namespace: 5 }) } : {}),
  });

describe("the nine tools' static routes", () => {
  it("exist for exactly the nine tools, beside the dynamic one", () => {
    const folders = fs
      .readdirSync(here, { withFileTypes: true })
      .filter((d) => d.isDirectory() && fs.existsSync(path.join(here, d.name, "route.ts")))
      .map((d) => d.name)
      .sort();
    expect(folders).toEqual(["[tool]", ...toolNames].sort());
  });

  it("each runs its own tool (the one that checks the input), and answers other methods 405", async () => {
    const t = await makeTenant();
    const agent = await makeActor(t, t.users.alice!);
    for (const name of toolNames) {
      const route = (await import(`./${name}/route.ts`)) as Route;
      const params = Promise.resolve({});
      const res = await route.POST(call(agent.token, name), { params });
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect([name, res.status, body.error.code]).toEqual([name, 400, "invalid_input"]);
      expect(body.error.message).toContain(` ${name} input:`);
      // A token that is no one's (an agent's form or another): 401, before any input is read. (No token at all, a
      // session's turn, needs a request scope: e2e/agent-rest.spec.ts.)
      for (const token of ["rga_not-a-token", "not-a-token"]) {
        const req = new Request(`http://realmgate.test/api/v1/tools/${name}`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body: "{}" });
        const refused = await route.POST(req, { params });
        expect([name, token, refused.status]).toEqual([name, token, 401]);
      }
      for (const method of ["GET", "PUT", "PATCH", "DELETE"] as const) {
        const refused = await route[method](call(agent.token, name, method), { params });
        expect([name, method, refused.status, refused.headers.get("allow")]).toEqual([name, method, 405, "POST"]);
      }
    }
  });

  it("[tool] runs the tool its path names, and answers a name that is no tool 404", async () => {
    const t = await makeTenant();
    const agent = await makeActor(t, t.users.alice!);
    const route = (await import("./[tool]/route")) as Route;
    const known = await route.POST(call(agent.token, "get_object"), { params: Promise.resolve({ tool: "get_object" }) });
    expect(((await known.json()) as { error: { message: string } }).error.message).toContain(" get_object input:");
    const unknown = await route.POST(call(agent.token, "no_such_tool"), { params: Promise.resolve({ tool: "no_such_tool" }) });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: "not_found", details: { unknown_tool: true } } });
  });
});
