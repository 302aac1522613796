// Working sets on a real 1,223-operation service: GitHub's REST document imported as a realm, an agent
// materializes three typical reads and one typical write, and the catalog (the nine tools and the four exact
// ones) stays under the default 16 KB budget (issue #19's "Done when"). A fifth read evicts the least recently
// used read; the exact write takes its payload's fields beside idempotency_key and approval_id, not nested.
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { importRealm } from "@/lib/openapi-admin/import";
import { actionOperationKey } from "@/lib/realms/contract";
import { findRealm } from "@/lib/realms/registry";
import { DEFAULT_CATALOG_BUDGET_BYTES } from "@/lib/working-set/budget";
import { GENERIC_TOOL_NAMES } from "@/lib/working-set/names";
import { call, frozenClock, makeActor, makeTenant, type TestTenant } from "@/test-support";
import { dispatch } from "./dispatch";
import { catalogOf, listedTools } from "./working-set";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const GITHUB = path.join(process.cwd(), "node_modules/@octokit/openapi/generated/api.github.com.json");
const READS = ["issues/get", "issues/list-comments", "repos/get"];
const WRITE = "issues/create-comment";
const FIFTH = "pulls/get";

let t: TestTenant;
beforeAll(async () => {
  t = await makeTenant();
  const report = await importRealm(t.db, t.users.alice!, { namespace: "github", spec: fs.readFileSync(GITHUB, "utf8") });
  expect(report.operations.total).toBe(1223);
});

const materialize = (agent: Parameters<typeof dispatch>[0], action: string, on = true) =>
  dispatch(call(agent), "object_schema", { namespace: "github", operation: actionOperationKey(action), materialize: on }) as Promise<Json>;

describe("GitHub with a working set", () => {
  it("lists 3 typical reads and 1 typical write after the nine tools, and keeps the catalog under 16 KB", async () => {
    const agent = await makeActor(t, t.users.alice!);
    const clock = frozenClock(new Date("2026-12-01T10:00:00Z"));
    try {
      const answers: Json[] = [];
      for (const a of [...READS, WRITE]) {
        answers.push(await materialize(agent, a));
        clock.advance(1000);
      }
      for (const a of answers) {
        expect(a.materialized).not.toBeNull();
        expect(a.evicted).toEqual([]);
      }
      expect(answers.map((a) => [a.materialized.name, a.materialized.slot])).toEqual([
        ["github_issues_get", "read"],
        ["github_issues_list-comments", "read"],
        ["github_repos_get", "read"],
        ["github_issues_create-comment", "write"],
      ]);
      const proof = answers.at(-1)!.catalog;
      const listed = listedTools(await catalogOf(t.db, agent, clock.now()));
      const generic = listed.slice(0, 9).map((x) => x.name);
      expect(new Set(generic)).toEqual(GENERIC_TOOL_NAMES);
      expect(listed.slice(9).map((x) => x.name)).toEqual(answers.map((a) => a.materialized.name));
      expect(proof.tools.map((x: Json) => x.name)).toEqual(listed.map((x) => x.name));
      expect(proof).toMatchObject({ budget_bytes: DEFAULT_CATALOG_BUDGET_BYTES, reads: 3, writes: 1 });
      expect(proof.working_set_bytes).toBe(answers.reduce((n, a) => n + a.materialized.bytes, 0));
      expect(proof.catalog_bytes).toBe(proof.generic_bytes + proof.working_set_bytes);
      // The "Done when": GitHub with 4 exact tools keeps the catalog under 16 KB.
      expect(proof.catalog_bytes).toBeLessThan(16384);
    } finally {
      clock.restore();
    }
  });

  it("a fifth tool, a read, evicts the least recently used read and leaves the write", async () => {
    const agent = await makeActor(t, t.users.alice!);
    const clock = frozenClock(new Date("2026-12-01T11:00:00Z"));
    try {
      for (const a of [...READS, WRITE]) {
        await materialize(agent, a);
        clock.advance(1000);
      }
      // Using issues/get again (materialize marks it used) makes issues/list-comments the least recently used read.
      expect(await materialize(agent, "issues/get")).toMatchObject({ unchanged: true, list_changed: false });
      clock.advance(1000);
      const fifth = await materialize(agent, FIFTH);
      expect(fifth.materialized).toMatchObject({ name: "github_pulls_get", slot: "read" });
      expect(fifth.evicted).toEqual([expect.objectContaining({ name: "github_issues_list-comments", operation: "object.action.issues/list-comments", reason: "slot_full" })]);
      expect(fifth.catalog).toMatchObject({ reads: 3, writes: 1 });
      expect(fifth.catalog.catalog_bytes).toBeLessThan(16384);
      const listed = listedTools(await catalogOf(t.db, agent, clock.now())).slice(9).map((x) => x.name);
      expect(listed).toEqual(["github_issues_get", "github_repos_get", "github_issues_create-comment", "github_pulls_get"]);
    } finally {
      clock.restore();
    }
  });

  it("the exact write takes its payload's fields beside idempotency_key and approval_id, not nested", async () => {
    const agent = await makeActor(t, t.users.alice!);
    const a = await materialize(agent, WRITE);
    const realm = await findRealm(t.db, t.tenantId, "github");
    const action = realm!.manifest.actions.find((x) => x.name === WRITE)!;
    const payload = action.payload_schema as Json;
    const fields = Object.keys(payload.properties);
    expect(fields).toEqual(expect.arrayContaining(["owner", "repo", "issue_number", "body"]));
    // Were any payload field named like the call's own inputs, the payload would nest; GitHub's has none.
    expect(fields.filter((f) => ["idempotency_key", "approval_id", "ref"].includes(f))).toEqual([]);
    const schema = a.materialized.input_schema as Json;
    expect(Object.keys(schema.properties).sort()).toEqual([...fields, "idempotency_key", "approval_id"].sort());
    expect(schema.properties.payload).toBeUndefined();
    expect(schema.properties.ref).toBeUndefined();
    expect(schema.required).toEqual(payload.required);
    expect(schema.properties.body).toEqual(payload.properties.body);
    expect(schema).toMatchObject({ type: "object", additionalProperties: false });
    const listed = listedTools(await catalogOf(t.db, agent, new Date())).find((x) => x.name === "github_issues_create-comment") as Json;
    expect(listed.inputSchema).toEqual(schema);
    expect(listed.annotations).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true });
  });
});
