// The picker's ranked search over GitHub's REST API, imported as an owner imports it, through the real routes.
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { makeActor, makeTenant, type TestTenant } from "@/test-support";
import { createApiKey } from "@/lib/authz/api-keys";
import { GET as detail } from "../../route";
import { GET as realmList } from "../../../route";
import { POST as importRealm } from "../../../import/route";
import { GET as listOps } from "../route";
import { GET } from "./route";

// The document itself, read directly (never the package's index).
const SPEC = path.join(process.cwd(), "node_modules/@octokit/openapi/generated/api.github.com.json");
let t: TestTenant;
let owner: string;
let member: string;
let imported: number;

const req = (url: string, key: string, init: { method?: string; body?: unknown } = {}) =>
  new Request(`http://realmgate.test${url}`, {
    method: init.method ?? "GET",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
const ctx = (params: Record<string, string> = {}) => ({ params: Promise.resolve(params) });
const ranked = async (query: string, key = member) => GET(req(`/api/v1/realms/github/operations/ranked?${new URLSearchParams({ query })}`, key), ctx({ namespace: "github" }));

beforeAll(async () => {
  t = await makeTenant();
  owner = (await createApiKey(t.db, t.users.alice!, "ranked test")).key;
  member = (await createApiKey(t.db, t.users.bob!, "ranked test")).key;
  const res = await importRealm(req("/api/v1/realms/import", owner, { method: "POST", body: { namespace: "github", spec: fs.readFileSync(SPEC, "utf8"), base_url: "https://api.github.com" } }), ctx());
  expect(res.status, await res.clone().text()).toBe(201);
  imported = ((await res.json()) as { operations: { total: number } }).operations.total;
}, 180_000);

describe("GET /api/v1/realms/:namespace/operations/ranked", () => {
  it("ranks repos/delete first for “delete repository”, and what a person asks for near the top", async () => {
    const res = await ranked("delete repository");
    expect(res.status).toBe(200);
    const body = (await res.json()) as { operations: string[] };
    expect(body.operations[0]).toBe("object.action.repos/delete");
    expect(body.operations.length).toBeGreaterThan(1);
    const issue = (await (await ranked("create an issue")).json()) as { operations: string[] };
    expect(issue.operations.slice(0, 3)).toContain("object.action.issues/create");
  });

  it("is for people only: an agent's token is refused, a query too long is a clear 400, an unknown realm 404", async () => {
    const agent = await makeActor(t, t.users.bob!);
    const refused = await ranked("delete repository", agent.token);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("forbidden");
    const long = await ranked("x".repeat(201));
    expect(long.status).toBe(400);
    const unknown = await GET(req("/api/v1/realms/nope/operations/ranked?query=delete", member), ctx({ namespace: "nope" }));
    expect(unknown.status).toBe(404);
  });
});

describe("one operation count everywhere", () => {
  it("the card, the realm page's list and the curation page agree: every imported operation plus the describing ones", async () => {
    const cards = (await (await realmList(req("/api/v1/realms", member), ctx())).json()) as { realms: { namespace: string; operations: { total: number; describing: number } }[] };
    const card = cards.realms.find((r) => r.namespace === "github")!.operations;
    const page = (await (await detail(req("/api/v1/realms/github", member), ctx({ namespace: "github" }))).json()) as {
      card: { operations: { total: number } };
      operations: { key: string; area: string }[];
      areas: { id: string; count: number }[];
    };
    const curation = (await (await listOps(req("/api/v1/realms/github/operations?limit=1", owner), ctx({ namespace: "github" }))).json()) as { total: number; hidden: number };
    expect(card.total).toBe(page.operations.length);
    expect(page.card.operations.total).toBe(card.total);
    expect(card.total - card.describing).toBe(imported);
    expect(curation.total - curation.hidden).toBe(imported);
    // The areas cover every operation exactly once, and GitHub's areas include repos and issues.
    expect(page.areas.reduce((n, a) => n + a.count, 0)).toBe(page.operations.length);
    expect(page.areas.map((a) => a.id)).toEqual(expect.arrayContaining(["about", "repos", "issues", "actions"]));
    expect(page.operations.find((o) => o.key === "object.action.repos/delete")?.area).toBe("repos");
  });
});
