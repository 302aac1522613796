// Exact tool names over a real 1,223-operation service (GitHub's REST document, compiled and built as the
// openapi realm builds it): every name is one clients accept, no two actions share one, none is a generic tool's,
// and the same input always gives the same name. Synthetic manifests pin the hashed cases: a name too long, two
// actions whose plain names collide, and a plain name that would be one of the nine tools.
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { manifestSchema, type RealmManifest } from "@/lib/realms/contract";
import { compileSpec } from "@/lib/realms/openapi/compile";
import { buildRealm, type RealmRecord } from "@/lib/realms/openapi/manifest";
import { loadSpec } from "@/lib/realms/openapi/spec";
import { toolNames } from "@/lib/tools/schemas";
import { EXACT_TOOL_NAME, EXACT_TOOL_NAME_MAX, exactToolName, exactToolNames, GENERIC_TOOL_NAMES, hashedToolName } from "./names";

const GITHUB = path.join(process.cwd(), "node_modules/@octokit/openapi/generated/api.github.com.json");
const HASHED = /_[0-9a-f]{7}$/;

type Compiled = ReturnType<typeof compileSpec>;
let compiled: Compiled;

/** GitHub's realm manifest, as an import builds it (no curation: every operation visible), from the document compiled once. */
function githubManifest(namespace = "github"): RealmManifest {
  const record: RealmRecord = {
    id: "oas_names",
    tenantId: "tnt_names",
    namespace,
    title: compiled.title,
    description: compiled.description,
    keywords: [],
    baseUrl: compiled.servers[0] ?? "https://api.github.com",
    version: 1,
    credential: { type: "none", configured: false },
  };
  return buildRealm(record, compiled.operations.map((o) => ({ action: o.card.action, card: o.card, contract: o.contract })), new Map()).manifest;
}

/** A tiny native manifest with the given action names (all reads, no target). */
function manifestOf(namespace: string, actionNames: string[]): RealmManifest {
  const ops = ["provider.about", "object.schema", ...actionNames.map((a) => `object.action.${a}`)];
  return manifestSchema.parse({
    namespace,
    realm_type: "native",
    service_card: { title: "Names", purpose: "Names.", works_with: "Nothing.", touches: ["Things"], operation_labels: Object.fromEntries(ops.map((o) => [o, `Do ${o}`])) },
    kinds: [{ name: `${namespace}.thing`, label: "Thing", one_liner: "One thing.", ref_pattern: `${namespace}:thing:<id>`, fields: [{ name: "title", type: "text", description: "Title." }], operations: [], filters: [] }],
    selectors: [],
    actions: actionNames.map((name) => ({ name, label: `Do ${name}`, description: `Does ${name}.`, target_kind: null, payload_schema: { type: "object" }, example: {}, risk: "read", returns: "Nothing." })),
    catalog: { path: "/", label: "Names", description: "Everything.", keywords: [], kinds: [`${namespace}.thing`], operations: ops, children: [] },
    delivery: { cursors: false, files: false },
  });
}

let github: RealmManifest;
let names: Map<string, string>;
let loadMs = 0;
beforeAll(async () => {
  const t0 = performance.now();
  compiled = compileSpec(await loadSpec(fs.readFileSync(GITHUB, "utf8")));
  github = githubManifest();
  loadMs = performance.now() - t0;
  names = exactToolNames(github);
});

describe("GitHub's 1,223 operations as exact tool names", () => {
  it("loads GitHub once, fast enough for the suite", () => {
    expect(github.actions).toHaveLength(1223);
    // Compiling the document and building the realm is the whole cost of this file (about 1–3 s, more beside
    // other files on a busy machine): it stays under the ~10 s a file may take.
    expect(loadMs).toBeLessThan(10_000);
  });

  it("gives every action a name clients accept", () => {
    expect(names.size).toBe(github.actions.length);
    const bad = [...names.values()].filter((n) => !EXACT_TOOL_NAME.test(n) || n.length > EXACT_TOOL_NAME_MAX);
    expect(bad).toEqual([]);
  });

  it("never gives two actions the same name", () => {
    const byName = new Map<string, string[]>();
    for (const [action, name] of names) byName.set(name, [...(byName.get(name) ?? []), action]);
    expect([...byName.entries()].filter(([, actions]) => actions.length > 1)).toEqual([]);
  });

  it("never takes one of the nine generic tools' names, and the nine are exactly the dispatcher's tools", () => {
    expect([...GENERIC_TOOL_NAMES].sort()).toEqual([...toolNames].sort());
    expect(GENERIC_TOOL_NAMES.size).toBe(9);
    expect([...names.values()].filter((n) => GENERIC_TOOL_NAMES.has(n))).toEqual([]);
  });

  it("names a short, unique action plainly and a long one with the hash", () => {
    expect(names.get("issues/get")).toBe("github_issues_get");
    expect(names.get("issues/create-comment")).toBe("github_issues_create-comment");
    expect(exactToolName(github, "repos/get")).toBe("github_repos_get");
    const long = github.actions.map((a) => a.name).filter((a) => `github_${a}`.length > EXACT_TOOL_NAME_MAX);
    // GitHub has such actions (e.g. actions/… with long ids): the fixture exercises the cut.
    expect(long.length).toBeGreaterThan(0);
    for (const a of long) {
      const n = names.get(a)!;
      expect(n).toMatch(HASHED);
      expect(n).toHaveLength(EXACT_TOOL_NAME_MAX);
      expect(n).toBe(hashedToolName("github", a));
      expect(n.startsWith(`github_${a}`.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, EXACT_TOOL_NAME_MAX - 8))).toBe(true);
    }
  });

  it("is deterministic: the same manifest built again gives the same names", () => {
    const again = exactToolNames(githubManifest());
    expect(again).not.toBe(names);
    expect(again).toEqual(names);
    // And once computed, a manifest's names are the same map.
    expect(exactToolNames(github)).toBe(names);
  });

  it("depends on the namespace: the same document under another namespace names (and hashes) differently", () => {
    const other = { ...github, namespace: "gh" } as RealmManifest;
    const o = exactToolNames(other);
    expect(o.get("issues/get")).toBe("gh_issues_get");
    const long = github.actions.map((a) => a.name).find((a) => `github_${a}`.length > EXACT_TOOL_NAME_MAX && `gh_${a}`.length > EXACT_TOOL_NAME_MAX)!;
    expect(o.get(long)!.slice(-7)).not.toBe(names.get(long)!.slice(-7));
  });
});

describe("hashed names (synthetic manifests)", () => {
  it("hashes a plain name that would be one of the nine tools: namespace object + action schema is not object_schema", () => {
    const m = manifestOf("object", ["schema", "other"]);
    const n = exactToolNames(m);
    expect(n.get("schema")).not.toBe("object_schema");
    expect(n.get("schema")).toMatch(/^object_schema_[0-9a-f]{7}$/);
    expect(n.get("schema")).toBe(hashedToolName("object", "schema"));
    expect(n.get("other")).toBe("object_other");
    // Every generic name is guarded, not only object_schema.
    for (const g of GENERIC_TOOL_NAMES) {
      const i = g.indexOf("_");
      const [ns, action] = [g.slice(0, i), g.slice(i + 1)];
      expect(exactToolName(manifestOf(ns, [action]), action)).toMatch(new RegExp(`^${g}_[0-9a-f]{7}$`));
    }
  });

  it("hashes both actions whose plain names collide (a/b and a_b), and the two hashes differ", () => {
    const m = manifestOf("xx", ["a/b", "a_b", "c"]);
    const n = exactToolNames(m);
    expect(n.get("a/b")).toMatch(/^xx_a_b_[0-9a-f]{7}$/);
    expect(n.get("a_b")).toMatch(/^xx_a_b_[0-9a-f]{7}$/);
    expect(n.get("a/b")).not.toBe(n.get("a_b"));
    expect(n.get("c")).toBe("xx_c");
  });

  it("never gives a hashed name that another action's plain name already is (a longer hash then)", () => {
    const first = exactToolNames(manifestOf("xx", ["a/b", "a_b"])).get("a/b")!;
    // An operationId written to look like that hashed name.
    const crafted = first.slice("xx_".length);
    const n = exactToolNames(manifestOf("xx", ["a/b", "a_b", crafted]));
    expect(n.get(crafted)).toBe(first);
    expect(new Set(n.values()).size).toBe(3);
    expect(n.get("a/b")).toMatch(/^xx_a_b_[0-9a-f]{11}$/);
  });

  it("hashes a name over 48 characters to exactly 48, and keeps one of exactly 48 plain", () => {
    const at = "a".repeat(EXACT_TOOL_NAME_MAX - 3); // "nn_" + 45 = 48
    const over = "b".repeat(EXACT_TOOL_NAME_MAX - 2); // 49
    const n = exactToolNames(manifestOf("nn", [at, over]));
    expect(n.get(at)).toBe(`nn_${at}`);
    expect(n.get(over)).toHaveLength(EXACT_TOOL_NAME_MAX);
    expect(n.get(over)).toMatch(new RegExp(`^nn_b{37}_[0-9a-f]{7}$`));
  });

  it("replaces every character clients refuse with _, and is the same for the same input across manifests", () => {
    const m1 = manifestOf("svc", ["GET/repos/owner.repo", "x.y"]);
    const m2 = manifestOf("svc", ["x.y", "GET/repos/owner.repo"]);
    expect(exactToolName(m1, "GET/repos/owner.repo")).toBe("svc_GET_repos_owner_repo");
    expect(exactToolName(m1, "x.y")).toBe("svc_x_y");
    expect(exactToolNames(m2)).toEqual(new Map([...exactToolNames(m1)].reverse()));
    expect(hashedToolName("svc", "x.y")).toBe(hashedToolName("svc", "x.y"));
    expect(hashedToolName("svc", "x.y")).not.toBe(hashedToolName("svc", "x_y"));
  });

  it("hashes an action the manifest does not name (exactToolName's fallback)", () => {
    expect(exactToolName(manifestOf("zz", ["a"]), "gone")).toBe(hashedToolName("zz", "gone"));
  });
});
