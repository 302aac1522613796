// The client of an OpenAI-compatible embeddings API (`POST <base>/v1/embeddings`): one bounded call per batch
// of texts — a deadline, a cap on the answer's size, and a strict check of its shape. Failures come back as an
// EmbeddingsFailure whose `reason` is safe to show a caller: it names what went wrong (not configured, timed
// out, HTTP status, unreachable, unusable answer) and never the URL or the API key.
import { z } from "zod";
import { env, type Env } from "@/lib/env";
import { readBoundedBytes } from "@/lib/input/bytes";

export type EmbeddingsConfig = {
  /** The full endpoint, `…/v1/embeddings`. */
  endpoint: string;
  model: string;
  apiKey?: string;
};

/** Texts per request when embedding capability docs (OpenAI accepts up to 2,048; smaller servers far fewer). */
export const EMBED_BATCH = 96;
/** Longest text sent (characters): capability docs are short; this keeps every text inside a model's window. */
export const MAX_EMBED_CHARS = 2000;
/** Room per vector in an answer: a 4,096-dimension float vector written as JSON is about 80 KiB. */
const BYTES_PER_VECTOR = 128 * 1024;

export type FailureKind = "not_configured" | "timeout" | "http" | "unreachable" | "invalid";

export class EmbeddingsFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(reason, options);
    this.name = "EmbeddingsFailure";
  }
}

/** `https://host/` and `https://host/v1` both mean `https://host/v1/embeddings`. */
export function embeddingsEndpoint(base: string): string {
  const trimmed = base.replace(/\/+$/, "");
  return `${/\/v1$/.test(trimmed) ? trimmed : `${trimmed}/v1`}/embeddings`;
}

/** The configured embeddings API, or null when REALMGATE_EMBEDDINGS_URL is not set. */
export function embeddingsConfig(cfg: Pick<Env, "REALMGATE_EMBEDDINGS_URL" | "REALMGATE_EMBEDDINGS_MODEL" | "REALMGATE_EMBEDDINGS_API_KEY"> = env()): EmbeddingsConfig | null {
  if (!cfg.REALMGATE_EMBEDDINGS_URL || !cfg.REALMGATE_EMBEDDINGS_MODEL) return null;
  return {
    endpoint: embeddingsEndpoint(cfg.REALMGATE_EMBEDDINGS_URL),
    model: cfg.REALMGATE_EMBEDDINGS_MODEL,
    ...(cfg.REALMGATE_EMBEDDINGS_API_KEY ? { apiKey: cfg.REALMGATE_EMBEDDINGS_API_KEY } : {}),
  };
}

const answerSchema = z.object({
  data: z
    .array(z.object({ index: z.number().int().min(0).optional(), embedding: z.array(z.number().finite()).min(1).max(16_384) }))
    .min(1),
});

/** Read a response body, refusing it once it passes `limit` bytes. */
async function readCapped(res: Response, limit: number): Promise<string> {
  const tooLarge = () => new EmbeddingsFailure("invalid", `the embeddings endpoint's answer is larger than ${limit} bytes`);
  return Buffer.from(await readBoundedBytes(res, limit, tooLarge)).toString("utf8");
}

/**
 * Embed texts in one call. Resolves with one vector per text, in order; all of one length. The whole call —
 * connecting, waiting and reading the answer — is bounded by `timeoutMs`.
 */
export async function embed(cfg: EmbeddingsConfig, texts: string[], opts: { timeoutMs: number }): Promise<Float32Array[]> {
  const input = texts.map((t) => t.slice(0, MAX_EMBED_CHARS));
  const signal = AbortSignal.timeout(opts.timeoutMs);
  const timedOut = () => new EmbeddingsFailure("timeout", `the embeddings endpoint timed out (no answer within ${opts.timeoutMs} ms)`);
  let body: string;
  try {
    const res = await fetch(cfg.endpoint, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...(cfg.apiKey ? { authorization: `Bearer ${cfg.apiKey}` } : {}) },
      body: JSON.stringify({ model: cfg.model, input }),
      signal,
      redirect: "error",
    });
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      throw new EmbeddingsFailure("http", `the embeddings endpoint answered HTTP ${res.status}`);
    }
    body = await readCapped(res, 64 * 1024 + input.length * BYTES_PER_VECTOR);
  } catch (err) {
    if (err instanceof EmbeddingsFailure) throw err;
    if (signal.aborted) throw timedOut();
    // fetch's own message can carry the URL; say only what kind of failure it was.
    const code = (err as { cause?: { code?: unknown } }).cause?.code;
    throw new EmbeddingsFailure("unreachable", `the embeddings endpoint could not be reached${typeof code === "string" ? ` (${code})` : ""}`, { cause: err });
  }
  let parsed: z.infer<typeof answerSchema>;
  try {
    parsed = answerSchema.parse(JSON.parse(body));
  } catch (cause) {
    throw new EmbeddingsFailure("invalid", "the embeddings endpoint's answer is not an embeddings list", { cause });
  }
  if (parsed.data.length !== input.length) {
    throw new EmbeddingsFailure("invalid", `the embeddings endpoint returned ${parsed.data.length} vectors for ${input.length} texts`);
  }
  // OpenAI numbers each vector; servers that do not are taken in order.
  const ordered = parsed.data.every((d) => d.index !== undefined) ? [...parsed.data].sort((a, b) => a.index! - b.index!) : parsed.data;
  if (ordered.some((d, i) => d.index !== undefined && d.index !== i)) throw new EmbeddingsFailure("invalid", "the embeddings endpoint's answer numbers its vectors wrongly");
  const dims = ordered[0]!.embedding.length;
  if (ordered.some((d) => d.embedding.length !== dims)) throw new EmbeddingsFailure("invalid", "the embeddings endpoint returned vectors of different lengths");
  return ordered.map((d) => Float32Array.from(d.embedding));
}
