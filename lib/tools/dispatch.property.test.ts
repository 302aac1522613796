// Property: whatever a person or an agent sends to any of the nine tools, the answer is a result or a documented
// error (never a 500), and a failed call leaves nothing written. Inputs include the hostile ones: NUL and lone
// surrogates in strings and keys, and Object.prototype's names (`__proto__`, `constructor`, `toString`,
// `hasOwnProperty`) as words — in queries, titles, selectors — and as keys — in payloads, fields, filters.
// The tenant has an imported service whose operation id and summary are those words. (bench/fuzz.ts runs the same
// idea at 10,000 inputs per tool.)
import fc from "fast-check";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { ActorContext } from "@/lib/authz/context";
import { AppError, errorCodes } from "@/lib/errors";
import { importRealm } from "@/lib/openapi-admin/import";
import { call, envOverride, grant, makeActor, makeTenant, type TestTenant } from "@/test-support";
import { dispatch } from "./dispatch";
import { toolNames } from "./schemas";

let t: TestTenant;
let agent: ActorContext;

const oddities = {
  openapi: "3.0.3",
  info: { title: "Oddities", version: "1" },
  paths: {
    "/things": {
      get: {
        operationId: "constructor",
        summary: "constructor toString __proto__ hasOwnProperty",
        parameters: [{ name: "toString", in: "query", schema: { type: "string" } }],
        responses: { "200": { description: "ok" } },
      },
    },
  },
};

beforeAll(async () => {
  t = await makeTenant({ alice: "owner" });
  await dispatch(call(t.users.alice!), "upsert_object", { namespace: "docs", kind: "docs.document", fields: { title: "Prop doc" } });
  // A private address, allowed for the import only: afterwards calls are refused (realm_denied), never sent.
  const env = envOverride();
  env.set({ REALMGATE_OPENAPI_PRIVATE_HOSTS: "127.0.0.1" });
  try {
    await importRealm(t.db, t.users.alice!, { namespace: "oddities", spec: oddities, base_url: "http://127.0.0.1:9" });
  } finally {
    env.restore();
  }
  agent = await makeActor(t, t.users.alice!, "Property agent");
  await grant(t, t.users.alice!, agent.actorId, "docs", ["provider.about", "object.schema", "object.list", "object.search", "object.get", "object.upsert"]);
  await grant(t, t.users.alice!, agent.actorId, "oddities", ["provider.about", "object.schema", "object.action.constructor"]);
});

const rowCount = async () => {
  const r = await t.db.execute<{ n: number }>(
    sql`select (select count(*) from docs_documents where tenant_id = ${t.tenantId}) + (select count(*) from memory_items where tenant_id = ${t.tenantId}) + (select count(*) from boards where tenant_id = ${t.tenantId}) + (select count(*) from files where tenant_id = ${t.tenantId}) as n`,
  );
  return Number((r as unknown as { rows: { n: number }[] }).rows[0]!.n);
};

const PROTO = ["__proto__", "constructor", "toString", "hasOwnProperty"];
const BAD = ["\u0000", "a\u0000b", "\ud800", "x\udbff", "\udc00y", "\udfff"];
const protoWord = fc.constantFrom(...PROTO);
/** A string with a NUL, a lone surrogate or a prototype name put somewhere in it. */
const sprinkled = fc
  .tuple(fc.string({ maxLength: 12 }), fc.nat(), fc.constantFrom(...BAD, ...PROTO))
  .map(([s, i, bad]) => s.slice(0, i % (s.length + 1)) + bad + s.slice(i % (s.length + 1)));
const hostileString = fc.oneof(fc.constantFrom(...BAD, ...PROTO), sprinkled, fc.string({ maxLength: 40 }));
const hostileKey = fc.oneof(protoWord, fc.constantFrom(...BAD, "title\u0000", "ti\ud800tle"), sprinkled);
/** A record whose keys may be `__proto__` (an own key, as JSON.parse makes it) or hold bad characters. */
const hostileRecord = (value: fc.Arbitrary<unknown>, known: string[] = []) =>
  fc
    .array(fc.tuple(fc.oneof(hostileKey, ...(known.length ? [fc.constantFrom(...known)] : [])), value), { maxLength: 3 })
    .map((entries) => Object.fromEntries(entries));
const words = fc.array(fc.oneof(protoWord, fc.constantFrom("document", "comment", "reply", "create", "card", "memory"), hostileString), { minLength: 1, maxLength: 4 }).map((w) => w.join(" "));

const plausibleValue = fc.oneof(
  fc.constantFrom("docs", "memory", "board", "oddities", "nowhere", "docs:document:doc_aaaaaaaaaaaaaaaaaaaa", "docs.document", "memory.item", "reply_comment", "export", "constructor", "../../etc", ""),
  hostileString,
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(hostileString, { maxLength: 4 }),
  hostileRecord(hostileString),
);
const plausibleInput = fc.dictionary(
  fc.constantFrom("namespace", "ref", "kind", "query", "action", "payload", "fields", "filter", "cursor", "limit", "selector", "full", "schema_path", "operation", "name", "content_type", "content_base64", "idempotency_key", "extra", ...PROTO),
  plausibleValue,
  { maxKeys: 6 },
);

/** Inputs that get past the schema often, with the hostile words and keys where a caller's text goes. */
const shaped: Record<string, fc.Arbitrary<unknown>> = {
  provider_about: fc.record({ namespace: fc.oneof(protoWord, fc.constantFrom("docs", "oddities"), hostileString) }),
  object_schema: fc.oneof(
    fc.record({ query: words }),
    fc.record({ namespace: fc.constantFrom("docs", "oddities"), query: words }),
    fc.record({ namespace: fc.constantFrom("docs", "oddities"), operation: fc.oneof(protoWord, protoWord.map((w) => `object.action.${w}`), hostileString) }),
    fc.record({ namespace: fc.constantFrom("docs", "oddities"), schema_path: fc.oneof(protoWord.map((w) => `/${w}`), hostileString) }),
    fc.record({ namespace: fc.oneof(protoWord, hostileString) }),
  ),
  list_objects: fc.record({ namespace: fc.constantFrom("docs", "memory"), kind: fc.oneof(fc.constantFrom("docs.document", "memory.item"), protoWord), filter: hostileRecord(fc.oneof(hostileString, fc.boolean()), ["status", "owner"]) }),
  search_objects: fc.record({ namespace: fc.constantFrom("docs", "memory", "oddities"), query: words, filter: hostileRecord(hostileString) }),
  get_object: fc.oneof(
    fc.record({ namespace: fc.constantFrom("docs", "board"), kind: fc.constantFrom("docs.document", "board.card", "constructor"), selector: hostileRecord(fc.oneof(words, hostileString), ["title"]) }),
    fc.record({ ref: fc.oneof(hostileString, hostileString.map((s) => `docs:document:${s}`), protoWord.map((w) => `${w}:x:y`)) }),
  ),
  object_action: fc.oneof(
    fc.record({ namespace: fc.constantFrom("oddities", "docs"), action: fc.oneof(protoWord, fc.constantFrom("constructor", "export")), payload: hostileRecord(hostileString, ["toString", "format"]) }),
    fc.record({ ref: fc.constant("docs:document:doc_aaaaaaaaaaaaaaaaaaaa"), action: fc.constantFrom("export", "constructor"), payload: hostileRecord(hostileString, ["format"]) }),
  ),
  upsert_object: fc.record({
    namespace: fc.constantFrom("docs", "memory"),
    kind: fc.constantFrom("docs.document", "memory.item"),
    fields: hostileRecord(fc.oneof(words, hostileString, fc.array(hostileString, { maxLength: 2 })), ["title", "text", "tags", "kind"]),
  }),
  host_file: fc.record({ namespace: fc.constantFrom("docs", "memory", "constructor"), name: fc.oneof(protoWord, hostileString), content_type: fc.constantFrom("text/plain", "constructor/x"), content_base64: fc.constantFrom("aGk=", "") }),
  delete_object: fc.record({ ref: fc.oneof(hostileString.map((s) => `docs:document:${s}`), protoWord.map((w) => `${w}:x`), hostileString) }),
};

describe("the nine tools under random input", () => {
  it.each(toolNames)("%s answers with a result or a documented 4xx, and writes nothing when it fails", async (tool) => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.oneof({ weight: 2, arbitrary: shaped[tool]! }, plausibleInput, fc.anything({ key: hostileKey, maxDepth: 2 })), async (input) => {
        const who = n++ % 2 === 0 ? call(t.users.alice!) : call(agent);
        const before = await rowCount();
        try {
          await dispatch(who, tool, input);
        } catch (err) {
          expect(err, String(err)).toBeInstanceOf(AppError);
          const e = err as AppError;
          expect(Object.keys(errorCodes)).toContain(e.code);
          expect(e.code).not.toBe("internal_error");
          expect(e.status).toBeLessThan(500);
          expect(await rowCount()).toBe(before);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("capability search across realms works with an imported operation named and described `constructor`", async () => {
    for (const who of [call(t.users.alice!), call(agent)]) {
      const plain = (await dispatch(who, "object_schema", { query: "reply to a comment" })) as { matches: { operation: string }[] };
      expect(plain.matches[0]!.operation).toBe("object.action.reply_comment");
      const odd = (await dispatch(who, "object_schema", { query: "constructor" })) as { matches: { namespace: string; operation: string }[] };
      expect(odd.matches).toContainEqual(expect.objectContaining({ namespace: "oddities", operation: "object.action.constructor" }));
    }
  });
});
