// An /api path no route serves: a JSON 404 naming the method and path; under /api/v1 it also says where the agent
// API starts, so an agent that guessed a path is not left at a dead end.
import { describe, expect, it } from "vitest";
import { GET, POST } from "./route";

const ctx = { params: Promise.resolve({ path: [] as string[] }) };

describe("an /api path no route serves", () => {
  it("under /api/v1: 404 not_found that points at the tools list and how to call a tool", async () => {
    const res = await GET(new Request("http://realmgate.test/api/v1"), ctx);
    expect(res.status).toBe(404);
    const { error } = (await res.json()) as { error: { code: string; message: string; details: Record<string, unknown> } };
    expect(error.code).toBe("not_found");
    expect(error.message).toBe("No API route GET /api/v1. GET /api/v1/tools lists the tools and how to call them (POST /api/v1/tools/<name>).");
    expect(error.details).toMatchObject({ method: "GET", path: "/api/v1", start: "GET /api/v1/tools" });
  });

  it("elsewhere under /api: the method and path only", async () => {
    const res = await POST(new Request("http://realmgate.test/api/nothing-here", { method: "POST" }), ctx);
    expect(res.status).toBe(404);
    const { error } = (await res.json()) as { error: { message: string; details: Record<string, unknown> } };
    expect(error.message).toBe("No API route POST /api/nothing-here.");
    expect(error.details).not.toHaveProperty("start");
  });
});
