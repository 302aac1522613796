// object_schema(query, search_mode) end to end, through the dispatcher: the embeddings endpoint comes from the
// environment, exactly as a deployment configures it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { call, grant, makeActor, makeTenant, type TestTenant } from "@/test-support";
import { startFakeEmbeddings, type FakeEmbeddings } from "@/dev/fake-embeddings";
import type { ActorContext } from "@/lib/authz/context";
import { reloadEnv } from "@/lib/env";
import { newId } from "@/lib/ids";
import { dispatch } from "@/lib/tools/dispatch";
import { embeddingWritesSettled } from "./semantic";

type SchemaAnswer = { mode_ran: string; fallback?: { asked: string; reason: string }; matches: { namespace: string; operation: string }[]; confidence: string };

const VARS = ["REALMGATE_EMBEDDINGS_URL", "REALMGATE_EMBEDDINGS_MODEL", "REALMGATE_EMBEDDINGS_API_KEY"] as const;
const saved = Object.fromEntries(VARS.map((k) => [k, process.env[k]]));

function configure(vars: Partial<Record<(typeof VARS)[number], string>>) {
  for (const k of VARS) {
    if (vars[k] === undefined) delete process.env[k];
    else process.env[k] = vars[k];
  }
  reloadEnv();
}

let t: TestTenant;
let agent: ActorContext;
let fake: FakeEmbeddings;
const ask = (input: Record<string, unknown>) => dispatch(call(agent), "object_schema", input) as Promise<SchemaAnswer>;

beforeAll(async () => {
  fake = await startFakeEmbeddings({ dims: 96, apiKey: "sk-deploy-key" });
  t = await makeTenant();
  const alice = t.users.alice!;
  agent = await makeActor(t, alice);
  await grant(t, alice, agent.actorId, "docs", ["object.schema", "object.action.*"]);
});
afterAll(async () => {
  configure(saved);
  await embeddingWritesSettled();
  await fake.close();
});
beforeEach(() => {
  fake.faults.status = null;
});

describe("object_schema(query, search_mode)", () => {
  it("without an endpoint: lexical, and says so when semantic or hybrid was asked", async () => {
    configure({});
    const plain = await ask({ query: "reply to a comment" });
    expect(plain.mode_ran).toBe("lexical");
    expect(plain.fallback).toBeUndefined();
    expect(plain.matches[0]!.operation).toBe("object.action.reply_comment");
    expect(await ask({ namespace: "docs", query: "reply to a comment", search_mode: "semantic" })).toMatchObject({
      mode_ran: "lexical",
      fallback: { asked: "semantic", reason: "no embeddings endpoint is configured (REALMGATE_EMBEDDINGS_URL); lexical search ran instead" },
    });
  });

  it("with an endpoint: auto runs hybrid, semantic runs semantic, across realms and in one realm, with the key as bearer", async () => {
    configure({ REALMGATE_EMBEDDINGS_URL: `${fake.url}/v1/`, REALMGATE_EMBEDDINGS_MODEL: newId("req"), REALMGATE_EMBEDDINGS_API_KEY: "sk-deploy-key" });
    const before = fake.calls.length;
    const auto = await ask({ query: "respond to a remark" });
    expect(auto.mode_ran).toBe("hybrid");
    expect(auto.fallback).toBeUndefined();
    expect(auto.matches[0]).toMatchObject({ namespace: "docs", operation: "object.action.reply_comment" });
    const semantic = await ask({ namespace: "docs", query: "respond to a remark", search_mode: "semantic" });
    expect(semantic.mode_ran).toBe("semantic");
    expect(semantic.matches[0]!.operation).toBe("object.action.reply_comment");
    expect(await ask({ query: "respond to a remark", search_mode: "lexical" })).toMatchObject({ mode_ran: "lexical" });
    // The docs realm's descriptions once, then one call per search by meaning.
    const sizes = fake.calls.slice(before).map((c) => c.inputs);
    expect(sizes.filter((n) => n === 1)).toHaveLength(2);
    expect(sizes.filter((n) => n > 1)).toHaveLength(1);
    expect(fake.calls.slice(before).every((c) => c.authorization === "Bearer sk-deploy-key")).toBe(true);
  });

  it("marks the operations the caller holds no grant for (needs_grant), in every mode", async () => {
    configure({ REALMGATE_EMBEDDINGS_URL: fake.url, REALMGATE_EMBEDDINGS_MODEL: newId("req"), REALMGATE_EMBEDDINGS_API_KEY: "sk-deploy-key" });
    const other = await makeActor(t, t.users.alice!, "Reader");
    await grant(t, t.users.alice!, other.actorId, "docs", ["object.schema", "object.get"]);
    const answer = (await dispatch(call(other), "object_schema", { query: "respond to a remark", search_mode: "hybrid" })) as SchemaAnswer;
    expect(answer.mode_ran).toBe("hybrid");
    expect(answer.matches.length).toBeGreaterThan(0);
    const granted = (op: string) => op === "object.schema" || op === "object.get";
    expect(answer.matches.every((m) => granted(m.operation) === !(m as { needs_grant?: boolean }).needs_grant)).toBe(true);
    expect(answer.matches.find((m) => m.operation === "object.action.reply_comment")).toMatchObject({ needs_grant: true });
  });

  it("falls back to lexical with the endpoint's failure as the reason", async () => {
    configure({ REALMGATE_EMBEDDINGS_URL: fake.url, REALMGATE_EMBEDDINGS_MODEL: newId("req"), REALMGATE_EMBEDDINGS_API_KEY: "sk-deploy-key" });
    fake.faults.status = 500;
    const answer = await ask({ query: "reply to a comment" });
    expect(answer).toMatchObject({ mode_ran: "lexical", fallback: { asked: "auto", reason: expect.stringMatching(/HTTP 500; lexical search ran instead$/) } });
    expect(answer.matches[0]!.operation).toBe("object.action.reply_comment");
  });
});
