import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeEmbeddings, type FakeEmbeddings } from "@/dev/fake-embeddings";
import { parseEnv } from "@/lib/env";
import { embed, embeddingsConfig, embeddingsEndpoint, EmbeddingsFailure } from "./embeddings";

const good = { AUTH_SECRET: "x".repeat(32) };

let fake: FakeEmbeddings;
beforeAll(async () => {
  fake = await startFakeEmbeddings({ dims: 64, apiKey: "sk-test-secret" });
});
afterAll(() => fake.close());

const failureOf = async (p: Promise<unknown>): Promise<EmbeddingsFailure> => {
  try {
    await p;
  } catch (err) {
    if (err instanceof EmbeddingsFailure) return err;
    throw err;
  }
  throw new Error("expected an EmbeddingsFailure");
};

/** A server answering every request with one fixed response. */
async function fixedServer(handler: (res: import("node:http").ServerResponse) => void): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    req.resume();
    handler(res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/embeddings`,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

describe("configuration", () => {
  it("accepts the base URL with or without /v1", () => {
    expect(embeddingsEndpoint("https://api.example.com")).toBe("https://api.example.com/v1/embeddings");
    expect(embeddingsEndpoint("https://api.example.com/v1/")).toBe("https://api.example.com/v1/embeddings");
    expect(embeddingsEndpoint("http://127.0.0.1:8080/openai/v1")).toBe("http://127.0.0.1:8080/openai/v1/embeddings");
  });

  it("is off unless the URL is set, and then needs a model", () => {
    expect(embeddingsConfig(parseEnv(good))).toBeNull();
    expect(
      embeddingsConfig(parseEnv({ ...good, REALMGATE_EMBEDDINGS_URL: "http://127.0.0.1:9/v1", REALMGATE_EMBEDDINGS_MODEL: "m", REALMGATE_EMBEDDINGS_API_KEY: "k" })),
    ).toEqual({ endpoint: "http://127.0.0.1:9/v1/embeddings", model: "m", apiKey: "k" });
    expect(() => parseEnv({ ...good, REALMGATE_EMBEDDINGS_URL: "http://127.0.0.1:9" })).toThrow(
      "Invalid configuration: REALMGATE_EMBEDDINGS_MODEL is required when REALMGATE_EMBEDDINGS_URL is set",
    );
    expect(() => parseEnv({ ...good, REALMGATE_EMBEDDINGS_URL: "ftp://x", REALMGATE_EMBEDDINGS_MODEL: "m" })).toThrow("REALMGATE_EMBEDDINGS_URL");
  });
});

describe("embed", () => {
  it("posts the model and texts with the API key as a bearer token, and returns one vector per text in order", async () => {
    const cfg = { endpoint: embeddingsEndpoint(fake.url), model: "fake-64", apiKey: "sk-test-secret" };
    const before = fake.calls.length;
    const [a, b, a2] = await embed(cfg, ["delete a ticket", "list people", "delete a ticket"], { timeoutMs: 2000 });
    expect(fake.calls.slice(before)).toEqual([{ model: "fake-64", inputs: 3, authorization: "Bearer sk-test-secret" }]);
    expect(a).toHaveLength(64);
    expect(Array.from(a!)).toEqual(Array.from(a2!));
    expect(Array.from(a!)).not.toEqual(Array.from(b!));
  });

  it("names an HTTP status, and never the key or the URL", async () => {
    const failure = await failureOf(embed({ endpoint: embeddingsEndpoint(fake.url), model: "m", apiKey: "sk-wrong-key" }, ["x"], { timeoutMs: 2000 }));
    expect(failure).toMatchObject({ kind: "http", reason: "the embeddings endpoint answered HTTP 401" });
    expect(failure.message).not.toContain("sk-wrong-key");
    expect(failure.message).not.toContain("127.0.0.1");
  });

  it("says when the endpoint cannot be reached", async () => {
    const down = await fixedServer(() => {});
    await down.close();
    const failure = await failureOf(embed({ endpoint: down.url, model: "m" }, ["x"], { timeoutMs: 2000 }));
    expect(failure.kind).toBe("unreachable");
    expect(failure.reason).toMatch(/^the embeddings endpoint could not be reached/);
  });

  it("gives up after the timeout, whether the answer never starts or never ends", async () => {
    const silent = await fixedServer(() => {});
    expect(await failureOf(embed({ endpoint: silent.url, model: "m" }, ["x"], { timeoutMs: 200 }))).toMatchObject({
      kind: "timeout",
      reason: "the embeddings endpoint timed out (no answer within 200 ms)",
    });
    await silent.close();
    const trickle = await fixedServer((res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"data":[');
    });
    expect((await failureOf(embed({ endpoint: trickle.url, model: "m" }, ["x"], { timeoutMs: 200 }))).kind).toBe("timeout");
    await trickle.close();
  });

  it("refuses an answer that is too large, malformed, or does not fit the request", async () => {
    const cases: [string, (res: import("node:http").ServerResponse) => void, RegExp][] = [
      ["huge", (res) => res.end(`{"data":[{"embedding":[${"0.1,".repeat(200_000)}0.1]}]}`), /larger than/],
      ["not json", (res) => res.end("<html>"), /not an embeddings list/],
      ["wrong count", (res) => res.end(JSON.stringify({ data: [{ embedding: [1, 0] }, { embedding: [0, 1] }] })), /2 vectors for 1 texts/],
      ["ragged", (res) => res.end(JSON.stringify({ data: [{ index: 0, embedding: [1, 0] }, { index: 1, embedding: [1] }] })), /different lengths/],
    ];
    for (const [name, handler, reason] of cases) {
      const server = await fixedServer(handler);
      const texts = name === "ragged" ? ["a", "b"] : ["a"];
      const failure = await failureOf(embed({ endpoint: server.url, model: "m" }, texts, { timeoutMs: 2000 }));
      expect(failure.kind, name).toBe("invalid");
      expect(failure.reason, name).toMatch(reason);
      await server.close();
    }
  });

  it("puts vectors numbered out of order back in order", async () => {
    const server = await fixedServer((res) =>
      res.end(JSON.stringify({ data: [{ index: 1, embedding: [0, 1] }, { index: 0, embedding: [1, 0] }] })),
    );
    const [first, second] = await embed({ endpoint: server.url, model: "m" }, ["a", "b"], { timeoutMs: 2000 });
    expect(Array.from(first!)).toEqual([1, 0]);
    expect(Array.from(second!)).toEqual([0, 1]);
    await server.close();
  });
});
