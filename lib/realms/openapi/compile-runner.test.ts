// Bounded import cost: shared schemas converted once per document, digests and contract JSON made from each
// def's text once (and equal to the straightforward computation), the compile run in a worker thread under a
// cost cap — work, time, contract size — that answers payload_too_large, never hangs, and an in-process
// fallback with the same cap.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { canonicalJson } from "@/lib/canonical-json";
import { codeOf, errorOf } from "@/test-support";
import { CompileBudget, DEFAULT_LIMITS } from "./budget";
import { compileSpec, contractJson } from "./compile";
import { contractText } from "./compile-job";
import { compileDocument, MAX_RUNNING, MAX_WAITING, setCompileRunner } from "./compile-runner";
import { chainSpec } from "./fixtures/chain-spec";
import { loadSpec } from "./spec";

const helpdeskYaml = fs.readFileSync(path.join(import.meta.dirname, "fixtures", "helpdesk.yaml"), "utf8");

afterEach(() => setCompileRunner("auto"));


describe("shared schemas are converted once per document", () => {
  it("contracts and hashes equal the straightforward computation", async () => {
    for (const doc of [helpdeskYaml, chainSpec(40, 15)]) {
      const compiled = compileSpec(await loadSpec(doc));
      for (const { card, contract } of compiled.operations) {
        expect(contractJson(contract)).toBe(JSON.stringify(contract));
        const naive = createHash("sha256").update(canonicalJson({ s: contract.input_schema, p: contract.params, b: contract.body })).digest("hex").slice(0, 16);
        expect(card.input_hash).toBe(naive);
      }
    }
  });

  it("each operation's contract is self-contained: it lists every def it reaches, and only those", async () => {
    const compiled = compileSpec(await loadSpec(chainSpec(3, 5)));
    const defs = compiled.operations[0]!.contract.input_schema.$defs as Record<string, unknown>;
    // Node0 is the body, flattened beside the parameters; its `next` starts the chain of defs.
    expect(Object.keys(defs)).toEqual(["Node1", "Node2", "Node3", "Node4"]);
    // The same converted def is shared, not copied, by every contract.
    expect((compiled.operations[1]!.contract.input_schema.$defs as Record<string, unknown>).Node3).toBe(defs.Node3);
  });

  it("work grows with operations + defs listed, not operations × chain conversions", async () => {
    const work = async (ops: number, chain: number) => {
      const budget = new CompileBudget();
      compileSpec(await loadSpec(chainSpec(ops, chain), budget), budget);
      return budget.work;
    };
    const [small, large] = [await work(100, 100), await work(400, 100)];
    // Re-walking the chain per operation would cost ≥ 5 schema nodes × 100 links per operation.
    expect(large - small).toBeLessThan(300 * 100 * 2);
    expect(large).toBeLessThan(400 * 100 * 2);
  });
});

describe("the compile job runs in a worker thread", () => {
  it("answers the same cards and contracts as compiling in-process", async () => {
    const result = await compileDocument({ spec: helpdeskYaml, gzip: true });
    expect(result.stats.runner).toBe("worker");
    const local = compileSpec(await loadSpec(helpdeskYaml));
    expect(result.cards).toEqual(local.operations.map((o) => o.card));
    expect(result.cards.map((_, i) => JSON.parse(contractText(result.contracts!, i)) as unknown)).toEqual(local.operations.map((o) => o.contract));
    expect(result).toMatchObject({ title: "Helpdesk", version: expect.stringMatching(/^3\./), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(result.specGzip!.byteLength).toBeGreaterThan(100);
    // A dry run needs neither the contracts nor the stored document.
    expect(await compileDocument({ spec: helpdeskYaml, gzip: false })).toMatchObject({ contracts: null, specGzip: null });
  });

  it("a bad document's error crosses the thread as the same invalid_input, with its issues", async () => {
    const e = await errorOf(compileDocument({ spec: { openapi: "3.1.0", info: {}, paths: { "/a/{id}": { get: {} } } }, gzip: false }));
    expect(e).toMatchObject({ code: "invalid_input", details: { issues: [{ path: "paths./a/{id}.get", message: "path parameter {id} is not declared" }] } });
  });

  it("keeps the event loop free while a pathological document compiles: it compiles in a worker", async () => {
    const text = JSON.stringify(chainSpec(1000, 200));
    // No wall-clock bound (the machine running tests may be busy): the loop turns while the worker compiles.
    let turns = 0;
    const tick = setInterval(() => void turns++, 1);
    try {
      const result = await compileDocument({ spec: text, gzip: true });
      expect(result.stats.runner).toBe("worker");
      expect(result.cards).toHaveLength(1000);
    } finally {
      clearInterval(tick);
    }
    expect(turns).toBeGreaterThan(0);
  });

  it.each(["auto", "inline"] as const)("the cost cap answers payload_too_large, never a hang (%s)", async (mode) => {
    setCompileRunner(mode);
    const spec = JSON.stringify(chainSpec(300, 50));
    const work = await errorOf(compileDocument({ spec, gzip: false, limits: { maxWork: 5000 } }));
    expect(work).toMatchObject({ code: "payload_too_large", message: expect.stringMatching(/too costly to import/), details: { reason: "work_budget" } });
    const size = await errorOf(compileDocument({ spec, gzip: false, limits: { maxContractChars: 50_000 } }));
    expect(size).toMatchObject({ code: "payload_too_large", details: { reason: "contract_size" } });
    const slow = await errorOf(compileDocument({ spec, gzip: false, limits: { timeMs: 1 } }));
    expect(slow).toMatchObject({ code: "payload_too_large", details: { reason: "time_budget" } });
    // Within the defaults it compiles.
    expect((await compileDocument({ spec, gzip: false })).stats).toMatchObject({ runner: mode === "auto" ? "worker" : "inline" });
  });

  it("a step that cannot look at the clock (parsing a large YAML document) is stopped from outside", async () => {
    const yaml = stringify(chainSpec(5000, 20), { aliasDuplicateObjects: false });
    const started = performance.now();
    const e = await errorOf(compileDocument({ spec: yaml, gzip: false, limits: { timeMs: 100 } }));
    expect(e).toMatchObject({ code: "payload_too_large", details: { reason: "time_budget", time_ms: 100 } });
    expect(performance.now() - started).toBeLessThan(5000);
    // The worker it ended is replaced.
    expect((await compileDocument({ spec: helpdeskYaml, gzip: false })).stats.runner).toBe("worker");
  });

  it("the default budget takes GitHub's REST API with room to spare", () => {
    expect(DEFAULT_LIMITS.maxWork).toBeGreaterThan(10 * 200_000);
  });

  it(`runs at most ${MAX_RUNNING} jobs at once, queues ${MAX_WAITING}, and answers rate_limited beyond`, async () => {
    const jobs = Array.from({ length: MAX_RUNNING + MAX_WAITING + 1 }, () => codeOf(compileDocument({ spec: helpdeskYaml, gzip: false })));
    const outcomes = await Promise.all(jobs);
    expect(outcomes.filter((o) => o === "ok")).toHaveLength(MAX_RUNNING + MAX_WAITING);
    expect(outcomes.at(-1)).toBe("rate_limited");
  });
});
