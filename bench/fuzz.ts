// npm run bench:fuzz — random and hostile input to each of the nine tools, through the one dispatcher, in process
// (embedded PGlite in memory): FUZZ_N inputs per tool (default 10,000), as a person and as an agent with some
// grants. Inputs mix valid-ish calls built from the realms' own manifests and the objects that exist (refs, names,
// cursors of earlier answers, action examples) with hostile ones: NUL, lone surrogates, `__proto__` /
// `constructor` / `toString` / `hasOwnProperty` as words and as object keys, over-long and odd strings, wrong
// types, random JSON. Every answer must be a result or a documented error: the run counts answers by error code
// and fails (exit 1) on any internal_error — an unexpected exception, which REST would answer 500.
// FUZZ_N=500 for a quick local run; FUZZ_SEED to replay one.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import type { CatalogNode } from "@/lib/realms/contract";
process.env.AUTH_SECRET ??= randomBytes(32).toString("base64url");
process.env.APP_URL ??= "http://localhost:3000";

const PER_TOOL = Number(process.env.FUZZ_N ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? 424242);
const BATCH = 500;
/** FUZZ_VERBOSE=1: the most frequent error messages, to see which inputs never get past validation. */
const VERBOSE = process.env.FUZZ_VERBOSE === "1";

const PROTO_WORDS = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "prototype", "isPrototypeOf", "__defineGetter__", "toLocaleString"];
const BAD_CHARS = ["\u0000", "\ud800", "\udbff", "\udc00", "\udfff"];
const ODD = ["", " ", "\t", "%00", "..", "../../etc/passwd", "'", '"', "\\", "'; select pg_sleep(1); --", "\u202e", "\ufeff", "\u2028", "😀", "\ud83d\ude00", "𝔘𝔫𝔦", "NaN", "null", "undefined", "-1", "1e309", "*", "%", "_", "object.action.*", "a".repeat(501), "x".repeat(3000)];

/** A marker replaced at call time by one of the refs (or cursors) that exist then. */
class Slot {
  constructor(
    readonly what: "ref" | "cursor",
    readonly n: number,
    readonly ns: string | null,
    readonly kind: string | null,
  ) {}
}

type Pools = { refs: Map<string, string[]>; cursors: string[] };

function materialize(v: unknown, pools: Pools): unknown {
  if (v instanceof Slot) {
    if (v.what === "cursor") return pools.cursors.length ? pools.cursors[v.n % pools.cursors.length] : "no-cursor-yet";
    const inNs = [...pools.refs.keys()].filter((k) => !v.ns || k.startsWith(`${v.ns} `));
    const ofKind = inNs.filter((k) => !v.kind || k === `${v.ns} ${v.kind}`);
    const keys = ofKind.length ? ofKind : inNs;
    const key = keys.length ? keys[v.n % keys.length]! : null;
    const list = key ? pools.refs.get(key)! : [];
    return list.length ? list[v.n % list.length] : `${v.ns ?? "docs"}:document:doc_aaaaaaaaaaaaaaaaaaaa`;
  }
  if (Array.isArray(v)) return v.map((x) => materialize(x, pools));
  if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, materialize(x, pools)]));
  return v;
}

/** Hostile edits applied to a valid-ish input: a string leaf replaced, a key added, a value retyped. */
type Mutation = { at: number; op: "leaf" | "key" | "retype" | "drop"; key: string; value: unknown };

/** A deep copy that keeps slots as they are and every key as an own key. */
function clone(v: unknown): unknown {
  if (v instanceof Slot || typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) return v.map(clone);
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) Object.defineProperty(out, k, { value: clone(x), enumerable: true, writable: true, configurable: true });
  return out;
}

function mutate(input: unknown, muts: Mutation[]): unknown {
  const copy = clone(input);
  const holders: Record<string, unknown>[] = [];
  const walk = (v: unknown) => {
    if (v instanceof Slot) return;
    if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === "object" && v !== null) {
      holders.push(v as Record<string, unknown>);
      Object.values(v).forEach(walk);
    }
  };
  walk(copy);
  for (const m of muts) {
    const h = holders[m.at % Math.max(1, holders.length)];
    if (!h) continue;
    const keys = Object.keys(h);
    const k = keys.length ? keys[m.at % keys.length]! : m.key;
    // defineProperty: even `__proto__` becomes an own key, as JSON.parse makes it; only own values are read.
    const put = (key: string, value: unknown) => Object.defineProperty(h, key, { value, enumerable: true, writable: true, configurable: true });
    const own = Object.hasOwn(h, k) ? h[k] : undefined;
    if (m.op === "key") put(m.key, m.value);
    else if (m.op === "leaf") {
      if (typeof own === "string" || own === undefined) put(k, m.value);
    } else if (m.op === "retype") put(k, m.value);
    else delete h[k];
  }
  return copy;
}

type RealmInfo = {
  ns: string;
  kinds: { name: string; fields: { name: string; type: string; enum?: string[]; writable: boolean; ref_kind?: string }[]; filters: string[]; operations: string[] }[];
  selectors: { kind: string; by: string }[];
  actions: { name: string; target_kind: string | null; example: Record<string, unknown> }[];
  paths: string[];
  operations: string[];
  files: boolean;
  words: string[];
};

function arbitraries(realms: RealmInfo[], names: string[]) {
  const protoWord = fc.constantFrom(...PROTO_WORDS);
  const badChar = fc.constantFrom(...BAD_CHARS);
  const sprinkled = fc
    .tuple(fc.string({ maxLength: 24 }), fc.nat(), fc.oneof(badChar, protoWord))
    .map(([s, i, bad]) => s.slice(0, i % (s.length + 1)) + bad + s.slice(i % (s.length + 1)));
  const hostileString = fc.oneof(
    fc.constantFrom(...BAD_CHARS, ...PROTO_WORDS, ...ODD),
    sprinkled,
    fc.string({ unit: "binary", maxLength: 24 }),
    fc.string({ maxLength: 40 }),
  );
  const hostileKey = fc.oneof(fc.constantFrom(...PROTO_WORDS), sprinkled, fc.constantFrom(...BAD_CHARS, "", "a.b", "0", "title\u0000"), fc.string({ maxLength: 12 }));
  const scalar = fc.oneof(hostileString, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constantFrom(Number.MAX_SAFE_INTEGER, -0, 1e21));
  const hostileValue = fc.oneof(
    { weight: 4, arbitrary: scalar },
    { weight: 1, arbitrary: fc.array(hostileString, { maxLength: 5 }) },
    { weight: 1, arbitrary: fc.dictionary(hostileKey, scalar, { maxKeys: 4 }) },
    { weight: 1, arbitrary: fc.object({ key: hostileKey, values: [scalar], maxDepth: 3, maxKeys: 3 }) },
  );

  const allWords = [...new Set([...realms.flatMap((r) => r.words), ...names])].filter((w) => w.length > 0);
  const realWord = fc.constantFrom(...allWords);
  const word = fc.oneof({ weight: 5, arbitrary: realWord }, { weight: 2, arbitrary: protoWord }, { weight: 1, arbitrary: hostileString });
  const phrase = fc.array(word, { minLength: 1, maxLength: 6 }).map((ws) => ws.join(" "));
  const nsArb = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...realms.map((r) => r.ns)) }, { weight: 1, arbitrary: protoWord }, { weight: 1, arbitrary: hostileString });
  const realm = fc.constantFrom(...realms);
  /** Mostly a realm whose kinds support `op`, sometimes any. */
  const realmFor = (op: string) => {
    const fit = realms.filter((r) => r.kinds.some((k) => k.operations.includes(op)));
    return fit.length ? fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...fit) }, { weight: 1, arbitrary: realm }) : realm;
  };
  const refSlot = (ns: string | null, kind: string | null) => fc.nat().map((n) => new Slot("ref", n, ns, kind));
  const anyRef = fc.oneof(
    { weight: 6, arbitrary: fc.tuple(realm, fc.nat()).chain(([r]) => refSlot(r.ns, null)) },
    { weight: 1, arbitrary: fc.tuple(realm, hostileString).map(([r, s]) => `${r.ns}:${s}`) },
    { weight: 1, arbitrary: fc.tuple(realm, fc.constantFrom("document", "card", "item", "thread", "column", "board", "comment", "tab", "file", "export", "x"), hostileString).map(([r, seg, s]) => `${r.ns}:${seg}:${s}`) },
    { weight: 1, arbitrary: hostileString },
  );
  const cursor = fc.oneof(fc.nat().map((n) => new Slot("cursor", n, null, null)), hostileString);
  const limit = fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 1, max: 50 }) }, { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), hostileString) });
  const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined, freq: 2 });
  const compact = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

  const fieldValue = (f: RealmInfo["kinds"][number]["fields"][number], ns: string): fc.Arbitrary<unknown> => {
    switch (f.type) {
      case "string":
      case "text":
        return fc.oneof({ weight: 4, arbitrary: f.enum?.length ? fc.constantFrom(...f.enum) : phrase }, { weight: 1, arbitrary: hostileString });
      case "number":
      case "integer":
        return fc.oneof(fc.integer({ min: -5, max: 1000 }), fc.double(), hostileString);
      case "boolean":
        return fc.oneof(fc.boolean(), hostileString);
      case "datetime":
        return fc.oneof(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), hostileString);
      case "ref":
        return fc.oneof(refSlot(ns, f.ref_kind ?? null), realWord, hostileString);
      case "ref[]":
        return fc.oneof(fc.array(fc.oneof(refSlot(ns, f.ref_kind ?? null), realWord), { maxLength: 3 }), fc.record({ add: fc.array(refSlot(ns, f.ref_kind ?? null), { maxLength: 2 }) }), hostileValue);
      case "string[]":
        return fc.oneof(fc.array(word, { maxLength: 4 }), fc.record({ add: fc.array(word, { maxLength: 2 }), remove: fc.array(word, { maxLength: 2 }) }), hostileValue);
      default:
        return hostileValue;
    }
  };
  const kindOf = (r: RealmInfo, op?: string) => {
    const ks = op ? r.kinds.filter((k) => k.operations.includes(op)) : r.kinds;
    return ks.length ? fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...ks) }, { weight: 1, arbitrary: fc.constantFrom(...r.kinds) }) : fc.constantFrom(...r.kinds);
  };
  const filterFor = (k: RealmInfo["kinds"][number]) =>
    fc.dictionary(fc.oneof({ weight: 4, arbitrary: k.filters.length ? fc.constantFrom(...k.filters) : hostileKey }, { weight: 1, arbitrary: hostileKey }), fc.oneof(word, fc.array(word, { maxLength: 3 }), fc.boolean(), fc.integer()), { maxKeys: 3 });
  const selectorFor = (r: RealmInfo, kind: string) => {
    const bys = r.selectors.filter((s) => s.kind === kind).map((s) => s.by);
    return fc.dictionary(fc.oneof({ weight: 5, arbitrary: bys.length ? fc.constantFrom(...bys) : hostileKey }, { weight: 1, arbitrary: hostileKey }), fc.oneof({ weight: 4, arbitrary: realWord }, { weight: 1, arbitrary: hostileString }), { minKeys: 1, maxKeys: 2 });
  };
  const idem = maybe(fc.oneof({ weight: 6, arbitrary: fc.string({ minLength: 8, maxLength: 10, unit: fc.constantFrom(..."abc012") }) }, { weight: 1, arbitrary: hostileString }));

  const structured: Record<string, fc.Arbitrary<unknown>> = {
    provider_about: fc.oneof(fc.constant({}), nsArb.map((namespace) => ({ namespace }))),
    object_schema: fc.oneof(
      fc.record({ query: phrase, search_mode: maybe(fc.constantFrom("lexical", "semantic", "hybrid", "auto")), limit: maybe(fc.integer({ min: 1, max: 50 })) }).map(compact),
      fc.tuple(realm, phrase).map(([r, query]) => ({ namespace: r.ns, query })),
      realm.chain((r) => fc.record({ namespace: fc.constant(r.ns), schema_path: fc.oneof(fc.constantFrom(...r.paths), word.map((w) => `/${w}`), hostileString) })),
      realm.chain((r) => fc.record({ namespace: fc.constant(r.ns), kind: fc.oneof(fc.constantFrom(...r.kinds.map((k) => k.name)), word) })),
      realm.chain((r) => fc.record({ namespace: fc.constant(r.ns), operation: fc.oneof(fc.constantFrom(...r.operations), protoWord.map((w) => `object.action.${w}`), word) })),
      nsArb.map((namespace) => ({ namespace })),
    ),
    list_objects: realmFor("object.list").chain((r) =>
      kindOf(r, "object.list").chain((k) => fc.record({ namespace: fc.constant(r.ns), kind: fc.constant(k.name), filter: maybe(filterFor(k)), cursor: maybe(cursor), limit: maybe(limit) }).map(compact)),
    ),
    search_objects: realmFor("object.search").chain((r) =>
      kindOf(r, "object.search").chain((k) =>
        fc.record({ namespace: fc.constant(r.ns), query: phrase, kind: maybe(fc.constant(k.name)), filter: maybe(filterFor(k)), cursor: maybe(cursor), limit: maybe(limit) }).map(compact),
      ),
    ),
    get_object: fc.oneof(
      fc.record({ ref: anyRef, full: maybe(fc.boolean()) }).map(compact),
      realmFor("object.get").chain((r) => kindOf(r, "object.get").chain((k) => fc.record({ namespace: fc.constant(r.ns), kind: fc.constant(k.name), selector: selectorFor(r, k.name), full: maybe(fc.boolean()) }).map(compact))),
    ),
    object_action: realm
      .filter((r) => r.actions.length > 0)
      .chain((r) =>
        fc.constantFrom(...r.actions).chain((a) =>
          fc
            .record({
              action: fc.oneof({ weight: 8, arbitrary: fc.constant(a.name) }, { weight: 1, arbitrary: word }),
              target: a.target_kind
                ? fc.oneof(
                    { weight: 3, arbitrary: refSlot(r.ns, a.target_kind).map((ref) => ({ ref })) },
                    { weight: 1, arbitrary: selectorFor(r, a.target_kind).map((selector) => ({ namespace: r.ns, kind: a.target_kind, selector })) },
                    { weight: 1, arbitrary: anyRef.map((ref) => ({ ref })) },
                  )
                : fc.oneof({ weight: 4, arbitrary: fc.constant({ namespace: r.ns }) }, { weight: 1, arbitrary: anyRef.map((ref) => ({ ref, namespace: r.ns })) }),
              payload: fc.oneof({ weight: 4, arbitrary: fc.constant(a.example) }, { weight: 1, arbitrary: fc.dictionary(fc.oneof(fc.constantFrom(...Object.keys(a.example), "x"), hostileKey), hostileValue, { maxKeys: 4 }) }),
              idempotency_key: idem,
            })
            .map(({ target, ...rest }) => compact({ ...rest, ...target })),
        ),
      ),
    upsert_object: realmFor("object.upsert").chain((r) =>
      kindOf(r, "object.upsert").chain((k) => {
        const writable = k.fields.filter((f) => f.writable);
        const fields = writable.length
          ? fc.record(Object.fromEntries(writable.map((f) => [f.name, fieldValue(f, r.ns)])), { requiredKeys: [] })
          : fc.dictionary(hostileKey, hostileValue, { maxKeys: 3 });
        return fc.record({ namespace: fc.constant(r.ns), kind: fc.constant(k.name), ref: fc.option(refSlot(r.ns, k.name), { nil: undefined, freq: 2 }), fields, idempotency_key: idem }).map(compact);
      }),
    ),
    host_file: fc
      .record({
        namespace: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...(realms.some((r) => r.files) ? realms.filter((r) => r.files) : realms).map((r) => r.ns)) }, { weight: 1, arbitrary: nsArb }),
        name: fc.oneof({ weight: 4, arbitrary: fc.constantFrom("notes.txt", "report.pdf", "a.md", "constructor", "__proto__.txt") }, { weight: 1, arbitrary: hostileString }),
        content_type: fc.oneof({ weight: 4, arbitrary: fc.constantFrom("text/plain", "application/pdf", "image/png", "text/markdown", "application/octet-stream") }, { weight: 1, arbitrary: hostileString }),
        content: fc.oneof({ weight: 4, arbitrary: fc.uint8Array({ maxLength: 256 }).map((b) => Buffer.from(b).toString("base64")) }, { weight: 1, arbitrary: hostileString }),
        idempotency_key: idem,
      })
      .map(({ content, ...rest }) => compact({ ...rest, content_base64: content })),
    delete_object: fc.oneof({ weight: 3, arbitrary: realmFor("object.delete").chain((r) => refSlot(r.ns, null)).map((ref) => ({ ref })) }, { weight: 1, arbitrary: fc.record({ ref: anyRef }) }),
  };

  const mutation = fc.record({ at: fc.nat(), op: fc.constantFrom("leaf", "key", "retype", "drop" as const), key: hostileKey, value: hostileValue }) as fc.Arbitrary<Mutation>;
  const plausibleInput = fc.dictionary(
    fc.constantFrom("namespace", "ref", "kind", "query", "action", "payload", "fields", "filter", "cursor", "limit", "selector", "full", "schema_path", "operation", "name", "content_type", "content_base64", "idempotency_key", "search_mode", ...PROTO_WORDS),
    fc.oneof(hostileValue, nsArb, anyRef, word),
    { maxKeys: 6 },
  );
  return (tool: string): fc.Arbitrary<unknown> =>
    fc.oneof(
      { weight: 14, arbitrary: structured[tool]! },
      { weight: 5, arbitrary: fc.tuple(structured[tool]!, fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([input, muts]) => mutate(input, muts)) },
      { weight: 2, arbitrary: plausibleInput },
      { weight: 1, arbitrary: fc.anything({ key: hostileKey, maxDepth: 3, maxKeys: 4, values: [hostileString, fc.integer(), fc.boolean(), fc.constant(null)] }) },
    );
}

/** A small imported service whose words and parameter names are the dangerous ones. */
const odditiesSpec = {
  openapi: "3.0.3",
  info: { title: "Oddities", version: "1.0.0", description: "An API whose words are constructor, toString and __proto__." },
  paths: {
    "/tickets": {
      get: {
        operationId: "constructor",
        summary: "constructor toString __proto__ hasOwnProperty valueOf",
        parameters: [
          { name: "constructor", in: "query", schema: { type: "string" } },
          { name: "toString", in: "query", schema: { type: "string" } },
        ],
        responses: { "200": { description: "ok" } },
      },
      post: {
        operationId: "hasOwnProperty",
        summary: "Create a ticket with valueOf and toString",
        requestBody: { content: { "application/json": { schema: { type: "object", properties: { toString: { type: "string" }, valueOf: { type: "integer" }, title: { type: "string" } } } } } },
        responses: { "201": { description: "created" } },
      },
    },
  },
};

async function main() {
  process.env.REALMGATE_DATA_DIR = ":memory:";
  delete process.env.DATABASE_URL;
  delete process.env.REALMGATE_EMBEDDINGS_URL;
  process.env.REALMGATE_OPENAPI_PRIVATE_HOSTS = "127.0.0.1";
  const { reloadEnv } = await import("@/lib/env");
  reloadEnv();
  const { closeDb } = await import("@/db/client");
  const { makeTenant } = await import("@/test-support");
  const { makeActor, grant, call } = await import("@/test-support");
  const { dispatch } = await import("@/lib/tools/dispatch");
  const { AppError } = await import("@/lib/errors");
  const { serverErrorLine } = await import("@/lib/server-log");
  const { listRealms } = await import("@/lib/realms/registry");
  const { importRealm } = await import("@/lib/openapi-admin/import");
  const { startHelpdeskServer } = await import("@/lib/realms/openapi/fixtures/helpdesk-server");
  const { seedDemo: seedMemory } = await import("@/lib/realms/memory/demo");
  const { seedDemo: seedDocs } = await import("@/lib/realms/docs/demo");
  const { seedDemo: seedBoard } = await import("@/lib/realms/board/demo");
  const { toolNames } = await import("@/lib/tools/schemas");
  const { writeSection, machineLine } = await import("./report");
  type DemoFile = import("@/db/seed").DemoFile;

  const t = await makeTenant({ alice: "owner", bob: "member", sam: "support" });
  const demo: DemoFile = {
    app_url: process.env.APP_URL!,
    tenant: { id: t.tenantId, slug: t.slug, name: "Fuzz" },
    users: Object.fromEntries(Object.entries(t.users).map(([k, u]) => [k, { email: u.email, name: k, role: u.role, password: "", api_key: "", user_id: u.userId }])),
  };
  for (const seed of [seedMemory, seedDocs, seedBoard]) await seed(t.db, demo, null);
  const yamlText = fs.readFileSync(path.resolve("lib/realms/openapi/fixtures/helpdesk.yaml"), "utf8");
  const desk = await startHelpdeskServer();
  await importRealm(t.db, t.users.alice!, { namespace: "helpdesk", spec: yamlText, base_url: desk.baseUrl, credential: { type: "bearer", token: "fuzz-token" } });
  await importRealm(t.db, t.users.alice!, { namespace: "oddities", spec: odditiesSpec, base_url: desk.baseUrl });

  const alice = t.users.alice!;
  const agent = await makeActor(t, alice, "Fuzz Agent");
  for (const [ns, ops] of Object.entries({
    docs: ["provider.about", "object.schema", "object.list", "object.search", "object.get", "object.upsert", "object.action.reply_comment", "object.action.export"],
    board: ["provider.about", "object.schema", "object.list", "object.get", "object.action.move_card"],
    memory: ["provider.about", "object.schema", "object.list", "object.search", "object.get", "object.upsert", "object.delete"],
    helpdesk: ["provider.about", "object.schema", "object.action.tickets/list", "object.action.tickets/get"],
    oddities: ["provider.about", "object.schema", "object.action.constructor"],
  })) {
    await grant(t, alice, agent.actorId, ns, ops).catch((err: unknown) => console.warn(`grant on ${ns} skipped: ${(err as Error).message}`));
  }
  const callers = [
    { label: "user (owner)", ctx: alice },
    { label: "agent", ctx: agent },
    { label: "user (owner)", ctx: alice },
    { label: "agent", ctx: agent },
    { label: "user (member)", ctx: t.users.bob! },
    { label: "agent", ctx: agent },
    { label: "user (support)", ctx: t.users.sam! },
  ];

  const realms = await listRealms(t.db, t.tenantId);
  const info: RealmInfo[] = realms.map(({ manifest: m }) => {
    const paths: string[] = [];
    const walk = (n: CatalogNode) => {
      paths.push(n.path);
      n.children.forEach(walk);
    };
    walk(m.catalog);
    return {
      ns: m.namespace,
      kinds: m.kinds.map((k) => ({ name: k.name, fields: k.fields, filters: k.filters, operations: k.operations })),
      selectors: m.selectors,
      actions: m.actions.map((a) => ({ name: a.name, target_kind: a.target_kind, example: a.example })),
      paths,
      files: m.delivery.files,
      operations: [...Object.keys(m.service_card.operation_labels)],
      words: [m.service_card.title, ...m.kinds.map((k) => k.label), ...m.actions.map((a) => a.label)].flatMap((s) => s.split(/\s+/)).slice(0, 200),
    };
  });

  // The objects that exist (and the names people use for them), refreshed from results as the run goes.
  const pools: Pools = { refs: new Map(), cursors: [] };
  const names = new Set<string>();
  const remember = (v: unknown, depth = 0): void => {
    if (depth > 6 || v === null || typeof v !== "object") return;
    if (Array.isArray(v)) return v.slice(0, 50).forEach((x) => remember(x, depth + 1));
    const o = v as Record<string, unknown>;
    if (typeof o.ref === "string" && /^[a-z][a-z0-9_]*:/.test(o.ref)) {
      const ns = o.ref.slice(0, o.ref.indexOf(":"));
      const kind = typeof o.kind === "string" ? o.kind : info.find((r) => r.ns === ns)?.kinds.find((k) => o.ref!.toString().includes(`:${k.name.split(".")[1]}:`))?.name;
      const key = `${ns} ${kind ?? "?"}`;
      const list = pools.refs.get(key) ?? [];
      if (!list.includes(o.ref)) list.push(o.ref);
      if (list.length > 200) list.shift();
      pools.refs.set(key, list);
    }
    for (const k of ["label", "title", "name"]) if (typeof o[k] === "string" && names.size < 300) names.add(o[k] as string);
    if (typeof o.next_cursor === "string") {
      pools.cursors.push(o.next_cursor);
      if (pools.cursors.length > 100) pools.cursors.shift();
    }
    for (const x of Object.values(o)) remember(x, depth + 1);
  };
  for (const r of info) for (const k of r.kinds) if (k.operations.includes("object.list")) await dispatch(call(alice), "list_objects", { namespace: r.ns, kind: k.name, limit: 50 }).then(remember, () => {});
  for (const r of info) for (const k of r.kinds) if (k.operations.includes("object.list")) await dispatch(call(alice), "list_objects", { namespace: r.ns, kind: k.name, limit: 2 }).then(remember, () => {});

  if (VERBOSE) console.error(`pools: ${[...pools.refs.entries()].map(([k, v]) => `${k} ${v.length} (${v[0]})`).join(", ")}; ${pools.cursors.length} cursors; ${names.size} names`);
  const arbFor = arbitraries(info, [...names]);
  type Row = { tool: string; calls: number; ok: number; codes: Map<string, number>; internal: number; ms: number };
  const rows: Row[] = [];
  /** Distinct unexpected errors (by tool and error line), each with its first input and a count. */
  const failures = new Map<string, { tool: string; caller: string; input: string; stack: string; n: number }>();
  const byCaller = new Map<string, number>();
  const messages = new Map<string, number>();
  const t0 = performance.now();
  for (const [ti, tool] of toolNames.entries()) {
    const row: Row = { tool, calls: 0, ok: 0, codes: new Map(), internal: 0, ms: 0 };
    const started = performance.now();
    for (let b = 0; b * BATCH < PER_TOOL; b++) {
      const inputs = fc.sample(arbFor(tool), { numRuns: Math.min(BATCH, PER_TOOL - b * BATCH), seed: SEED + ti * 100_003 + b });
      for (const [i, raw] of inputs.entries()) {
        const who = callers[(row.calls + i * 3 + b) % callers.length]!;
        const input = materialize(raw, pools);
        row.calls++;
        byCaller.set(who.label, (byCaller.get(who.label) ?? 0) + 1);
        try {
          remember(await dispatch(call(who.ctx), tool, input));
          row.ok++;
        } catch (err) {
          const code = err instanceof AppError ? err.code : "internal_error";
          row.codes.set(code, (row.codes.get(code) ?? 0) + 1);
          if (VERBOSE) {
            const key = `${tool} ${code}: ${String((err as Error).message).replace(/"[^"]*"|\d+/g, "…").slice(0, 110)}`;
            messages.set(key, (messages.get(key) ?? 0) + 1);
          }
          if (code === "internal_error") {
            row.internal++;
            const key = `${tool} ${serverErrorLine(err, "fuzz")}`;
            const seen = failures.get(key);
            if (seen) seen.n++;
            else failures.set(key, { tool, caller: who.label, input: JSON.stringify(input)?.slice(0, 400) ?? String(input), stack: ((err as Error)?.stack ?? "").split("\n").filter((l) => /^\s+at /.test(l)).slice(0, 7).join("\n"), n: 1 });
          }
        }
      }
    }
    row.ms = performance.now() - started;
    rows.push(row);
    console.log(`${tool}: ${row.calls} calls, ${row.ok} ok, internal_error ${row.internal}, ${((row.calls / row.ms) * 1000).toFixed(0)} calls/s`);
  }
  const totalMs = performance.now() - t0;
  await desk.close();
  await closeDb();

  const total = rows.reduce((a, r) => a + r.calls, 0);
  const internal = rows.reduce((a, r) => a + r.internal, 0);
  const fmt = (n: number) => n.toLocaleString("en-US");
  const codesOf = (r: Row) =>
    [...r.codes.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([c, n]) => `${c} ${fmt(n)}`)
      .join(" · ");
  const md = `## Fuzzing the nine tools (\`npm run bench:fuzz\`)

${fmt(PER_TOOL)} random inputs per tool (seed ${SEED}), through the dispatcher in process on embedded PGlite (in memory), on a
tenant with the demo data of memory, docs and board and two imported OpenAPI services (the helpdesk fixture, served
locally, and one whose operation ids, summaries and parameter names are \`constructor\`, \`toString\`, \`__proto__\`…).
Callers take turns: the owner, a member, support staff, and an agent holding some grants (${[...byCaller.entries()].map(([k, n]) => `${k} ${fmt(n)}`).join(", ")}).
Inputs mix valid-ish calls built from the manifests and the objects that exist (refs, names, cursors of earlier answers,
action examples) with hostile ones: NUL and lone surrogates, \`__proto__\` / \`constructor\` / \`toString\` /
\`hasOwnProperty\` as words and as object keys, over-long strings, wrong types, random JSON. An **internal_error** is any
answer that is not a documented error (REST would answer 500); the run fails on one.

| tool | calls | result | errors by code | internal_error | calls/s |
|---|---|---|---|---|---|
${rows.map((r) => `| \`${r.tool}\` | ${fmt(r.calls)} | ${fmt(r.ok)} | ${codesOf(r) || "—"} | **${r.internal}** | ${fmt(Math.round((r.calls / r.ms) * 1000))} |`).join("\n")}
| **all** | ${fmt(total)} | ${fmt(rows.reduce((a, r) => a + r.ok, 0))} | | **${internal}** | ${fmt(Math.round((total / totalMs) * 1000))} |

What it found when it was written (on the code before the fixes; each fixed, with a regression test next to the
fix): a query word \`constructor\` — or an imported operation's summary saying it, which broke every capability search
of the tenant — found \`Object.prototype.constructor\` in capability search's table of short forms; a namespace such
as \`constructor\`, \`__proto__\` or \`toString\` found Object.prototype in the built-in realm table (provider_about,
object_schema, search_objects, host_file, refs); \`object_schema(namespace, operation: "__proto__")\` did the same in the
base-tool table; a NUL in any string reached PostgreSQL (namespaces, queries, selectors, fields, refs: 22021), and a lone
surrogate reached a jsonb column (22P02). NUL and lone surrogates are now refused where input enters, as \`invalid_input\`
naming the field.

${machineLine()}`;
  writeSection("fuzz", md);
  console.log(md);
  if (VERBOSE) for (const [m, n] of [...messages.entries()].sort((a, b) => b[1] - a[1]).slice(0, 80)) console.error(`${String(n).padStart(6)} ${m}`);
  for (const [key, f] of failures) console.error(`\n--- ${f.n}× ${key}\n    first input (as ${f.caller}): ${f.input}\n${f.stack}`);
  process.exit(internal > 0 ? 1 : 0);
}

void main();
