// GET /api/v1/refs/describe in-process: people read refs by their names, with their own authority; what they
// cannot see is the same null whether it exists or not; agents are refused; at most 50 refs.
import { beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "@/lib/authz/api-keys";
import { dispatch } from "@/lib/tools/dispatch";
import { call, makeActor, makeTenant, type TestTenant } from "@/test-support";
import { GET } from "./route";

type Json = Record<string, unknown>;
let t: TestTenant;
let aliceKey: string;
let aliceDoc: string;
let bobDoc: string;

const up = async (who: TestTenant["users"][string], fields: Json) =>
  ((await dispatch(call(who), "upsert_object", { namespace: "docs", kind: "docs.document", fields })) as Json).ref as string;
const describeAs = (token: string, refs: string[]) =>
  GET(new Request(`http://realmgate.test/api/v1/refs/describe?${new URLSearchParams(refs.map((r) => ["ref", r])).toString()}`, { headers: { authorization: `Bearer ${token}` } }), {
    params: Promise.resolve({}),
  });

beforeAll(async () => {
  t = await makeTenant();
  aliceKey = (await createApiKey(t.db, t.users.alice!, "describe test")).key;
  aliceDoc = await up(t.users.alice!, { title: "Q3 planning" });
  bobDoc = await up(t.users.bob!, { title: "Bob's private notes" });
});

describe("GET /api/v1/refs/describe", () => {
  it("names what the person can see, and answers the same null for another's document, a missing one and an unknown realm", async () => {
    const missing = aliceDoc.replace(/.$/, aliceDoc.endsWith("a") ? "b" : "a");
    const res = await describeAs(aliceKey, [aliceDoc, bobDoc, missing, "nosuchrealm:thing:x1"]);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { refs: Record<string, Json | null> };
    expect(body.refs[aliceDoc]).toMatchObject({ label: "Q3 planning", kind: "docs.document" });
    expect(body.refs[bobDoc]).toBeNull();
    expect(body.refs[missing]).toBeNull();
    expect(body.refs["nosuchrealm:thing:x1"]).toBeNull();
    expect(JSON.stringify(body)).not.toContain("Bob's private notes");
  });

  it("is for people only: an agent's token is refused", async () => {
    const agent = await makeActor(t, t.users.alice!, "Reader");
    const res = await describeAs(agent.token, [aliceDoc]);
    expect(res.status).toBe(403);
    expect(JSON.stringify(await res.json())).not.toContain("Q3 planning");
  });

  it("refuses 51 refs, no ref at all and a malformed one as invalid_input", async () => {
    const many = Array.from({ length: 51 }, (_, i) => `docs:document:doc_${String(i).padStart(20, "0")}`);
    const tooMany = await describeAs(aliceKey, many);
    expect(tooMany.status).toBe(400);
    expect(((await tooMany.json()) as { error: Json }).error.code).toBe("invalid_input");
    expect((await describeAs(aliceKey, many.slice(0, 50))).status).toBe(200);
    expect(((await (await describeAs(aliceKey, [])).json()) as { error: Json }).error.code).toBe("invalid_input");
    expect(((await (await describeAs(aliceKey, ["no namespace here"])).json()) as { error: Json }).error.code).toBe("invalid_input");
  });
});
