// The import route: the owner names the realm and says its purpose; companion files and same-origin files
// beside a URL resolve the document's external refs; the service card states the credential truthfully.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTenant, type TestTenant } from "@/test-support";
import { createApiKey } from "@/lib/authz/api-keys";
import { findRealm } from "@/lib/realms/registry";
import { POST } from "./route";

let t: TestTenant;
let owner: string;
let server: http.Server;
let origin: string;
const served: string[] = [];

const doc = (extra: Record<string, unknown> = {}) => ({
  openapi: "3.0.3",
  info: { title: "API", version: "1", description: "## Welcome\n\nThe **Pet** store: [pets](https://x.example) and owners. Another sentence." },
  servers: [{ url: "https://pets.example.com" }],
  components: { securitySchemes: { key: { type: "apiKey", in: "header", name: "X-Key" } } },
  security: [{ key: [] }],
  paths: { "/pets": { get: { operationId: "pets/list", summary: "List pets", responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "array", items: { $ref: "./schemas/pet.yaml" } } } } } } } } },
  ...extra,
});
const files: Record<string, string> = {
  "/specs/schemas/pet.yaml": "type: object\nproperties:\n  id: {type: integer}\n  tag: {$ref: '../common.yaml#/Tag'}\n",
  "/specs/common.yaml": "Tag: {type: string}\n",
};

beforeAll(async () => {
  t = await makeTenant();
  owner = (await createApiKey(t.db, t.users.alice!, "readable test")).key;
  server = http.createServer((req, res) => {
    served.push(req.url ?? "");
    if (req.url === "/specs/openapi.json") return res.end(JSON.stringify(doc()));
    if (req.url === "/specs/spotify.yml") return res.end(fs.readFileSync(path.join(process.cwd(), "lib/realms/openapi/fixtures/spotify-official.yml")));
    if (req.url === "/specs/far.json") return res.end(JSON.stringify(doc({ paths: { "/x": { get: { responses: { "200": { $ref: "https://elsewhere.example.com/r.yaml" } } } } } })));
    const f = files[req.url ?? ""];
    if (f) return res.end(f);
    res.statusCode = 404;
    res.end("no");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.env.REALMGATE_OPENAPI_PRIVATE_HOSTS = "127.0.0.1";
});
afterAll(async () => {
  delete process.env.REALMGATE_OPENAPI_PRIVATE_HOSTS;
  await new Promise((resolve) => server.close(resolve));
});

const post = async (body: unknown) => {
  const res = await POST(
    new Request("http://realmgate.test/api/v1/realms/import", { method: "POST", headers: { authorization: `Bearer ${owner}`, "content-type": "application/json" }, body: JSON.stringify(body) }),
    { params: Promise.resolve({}) },
  );
  return { status: res.status, body: await res.json() };
};

const card = async (ns: string) => (await findRealm(t.db, t.tenantId, ns))!.manifest.service_card;
const petFiles = { "schemas/pet.yaml": files["/specs/schemas/pet.yaml"]!, "common.yaml": files["/specs/common.yaml"]! };

describe("the realm's name and purpose", () => {
  it("default to info.title and the first sentence of info.description, markdown stripped; a vague title is warned about", async () => {
    const res = await post({ namespace: "pets", spec: doc(), spec_files: petFiles, dry_run: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ title: "API", description: "The Pet store: pets and owners." });
    expect(res.body.warnings).toContainEqual({ path: "title", message: expect.stringMatching(/names no service; give title/) });
    expect(res.body.warnings.filter((w: { path: string }) => w.path === "description")).toEqual([]);
    // A description about the document rather than the service is taken, and warned about.
    const github = await post({ namespace: "gh", spec: doc({ info: { title: "GitHub v3 REST API", version: "1", description: "GitHub's official OpenAPI spec + Octokit extension" } }), spec_files: petFiles, dry_run: true });
    expect(github.body).toMatchObject({ title: "GitHub v3 REST API", description: "GitHub's official OpenAPI spec + Octokit extension" });
    expect(github.body.warnings).toContainEqual({ path: "description", message: expect.stringMatching(/speaks of the document, not the service.*give description/) });
    expect(github.body.warnings.filter((w: { path: string }) => w.path === "title")).toEqual([]);
  });

  it("are the owner's when given, and stay on a re-import that leaves them out", async () => {
    const first = await post({ namespace: "pets", spec: doc(), spec_files: petFiles, title: "  Pet   Store ", description: "Pets and their owners." });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ title: "Pet Store", description: "Pets and their owners." });
    expect(await card("pets")).toMatchObject({ title: "Pet Store", purpose: "Pets and their owners." });
    const again = await post({ namespace: "pets", spec: doc(), spec_files: petFiles });
    expect(again.body).toMatchObject({ title: "Pet Store", description: "Pets and their owners." });
    expect(await card("pets")).toMatchObject({ title: "Pet Store" });
  });

  it("are validated: not empty, bounded, one line without control characters", async () => {
    for (const bad of [{ title: "   " }, { title: "x".repeat(81) }, { description: "y".repeat(301) }, { title: "Bell\u0007" }]) {
      const res = await post({ namespace: "pets2", spec: doc(), spec_files: petFiles, ...bad });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.error.code).toBe("invalid_input");
    }
  });
});

describe("external refs", () => {
  it("resolve from spec_files given beside spec", async () => {
    const res = await post({ namespace: "files", spec: JSON.stringify(doc()), spec_files: petFiles, title: "Pets" });
    expect(res.status).toBe(201);
    const action = (await findRealm(t.db, t.tenantId, "files"))!.manifest.actions[0]!;
    expect(action.returns).toMatch(/"type":"array","items":"object","item_properties":\{"id":"integer","tag":"string"\}/);
  });

  it("answer spec_ref_unresolved, naming the file, when one is not given", async () => {
    const res = await post({ namespace: "nofiles", spec: doc() });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: "spec_ref_unresolved", details: { reason: "missing_file", missing_files: ["schemas/pet.yaml"] } });
  });

  it("are fetched beside a document imported by URL (same origin, through lib/net); another origin is refused", async () => {
    served.length = 0;
    const res = await post({ namespace: "byurl", spec_url: `${origin}/specs/openapi.json`, title: "Pets" });
    expect(res.status).toBe(201);
    expect(served).toEqual(expect.arrayContaining(["/specs/openapi.json", "/specs/schemas/pet.yaml", "/specs/common.yaml"]));
    const far = await post({ namespace: "far", spec_url: `${origin}/specs/far.json` });
    expect(far.status).toBe(422);
    expect(far.body.error).toMatchObject({ code: "spec_ref_unresolved", details: { reason: "cross_origin" } });
    expect(served).not.toContain("/r.yaml");
    // spec_files go with spec, not spec_url.
    expect((await post({ namespace: "mixed", spec_url: `${origin}/specs/openapi.json`, spec_files: petFiles })).status).toBe(400);
  });
});

describe("Spotify's official document by URL", () => {
  it("imports, and the file its x-spotify-policy extension names is never fetched", async () => {
    served.length = 0;
    const res = await post({ namespace: "spotify", spec_url: `${origin}/specs/spotify.yml`, dry_run: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ title: "Spotify Web API", dropped: { count: 0 } });
    expect(res.body.operations.total).toBeGreaterThan(80);
    expect(served).toEqual(["/specs/spotify.yml"]);
  });
});

describe("the service card's credential", () => {
  it("warns while none is configured and the document declares security, and names the kind once one is", async () => {
    expect((await card("files")).works_with).toMatch(/no credential.*calls will likely be refused by the service until an owner adds a credential/);
    const keyed = await post({ namespace: "files", spec: doc(), spec_files: petFiles, credential: { type: "header", name: "X-Key", value: "k-1" } });
    expect(keyed.status).toBe(200);
    expect((await card("files")).works_with).toBe("pets.example.com, called by Realmgate with the owner's API key, sent in a header.");
  });
});
