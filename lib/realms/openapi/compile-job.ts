// The CPU-heavy part of an import as one job — parse, dereference, compile, serialise the contracts, digest and
// gzip the document — under a cost cap. It runs in a worker thread (compile-worker.ts, started by
// compile-runner.ts) or, where no worker can start, in-process with the same cap. Input and output are plain
// data (structured-cloneable): the contracts come back as one buffer of UTF-8 JSON texts (transferred, not
// copied), so the main thread never walks them and decodes each only when it writes it.
import { gzipSync } from "node:zlib";
import { AppError, type ErrorCode } from "@/lib/errors";
import { CompileBudget, DEFAULT_LIMITS, type CompileLimits } from "./budget";
import { compileSpec, contractJson, type OperationCard } from "./compile";
import type { JsonObject, SpecIssue } from "./spec";
import { loadBundledSpec, type SpecFiles } from "./spec-refs";

export type CompileJobInput = {
  /** JSON or YAML text, or an already-parsed object. */
  spec: string | JsonObject;
  /** Return the contracts and gzip the canonical document, to store them; a dry run needs neither. */
  gzip: boolean;
  /** Companion files its external `$ref`s name (see spec-refs.ts), and the URL it came from, if any. */
  files?: SpecFiles;
  docUrl?: string;
  limits?: Partial<CompileLimits>;
};

export type CompileJobResult = {
  title: string;
  description: string;
  servers: string[];
  /** The document's `openapi` version. */
  version: string;
  sha256: string;
  warnings: SpecIssue[];
  dropped: { at: string; reason: string }[];
  cards: OperationCard[];
  /** One contract per card, as JSON text (null for a dry run): see contractText. */
  contracts: PackedTexts | null;
  specGzip: Uint8Array | null;
  stats: { work: number; ms: number; contractChars: number; runner: "worker" | "inline" };
};

/** Texts packed into one buffer: text i is bytes[offsets[i], offsets[i + 1]). Both buffers are transferable. */
export type PackedTexts = { bytes: Uint8Array; offsets: Uint32Array };

function pack(texts: string[]): PackedTexts {
  const offsets = new Uint32Array(texts.length + 1);
  for (let i = 0; i < texts.length; i++) offsets[i + 1] = offsets[i]! + Buffer.byteLength(texts[i]!);
  const bytes = Buffer.allocUnsafeSlow(offsets[texts.length]!);
  for (let i = 0; i < texts.length; i++) bytes.write(texts[i]!, offsets[i]!, "utf8");
  return { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), offsets };
}

/** Text `i` of a pack. */
export function contractText(p: PackedTexts, i: number): string {
  return Buffer.from(p.bytes.buffer, p.bytes.byteOffset, p.bytes.byteLength).toString("utf8", p.offsets[i], p.offsets[i + 1]);
}

export async function runCompileJob(input: CompileJobInput, runner: "worker" | "inline"): Promise<CompileJobResult> {
  const limits = { ...DEFAULT_LIMITS, ...input.limits };
  const budget = new CompileBudget(limits);
  const loaded = await loadBundledSpec(input.spec, { files: input.files, docUrl: input.docUrl }, budget);
  const compiled = compileSpec(loaded, budget);
  // Every contract is serialised (a dry run too: the size cap must answer the same), kept only to be stored.
  const texts: string[] = [];
  let chars = 0;
  for (const op of compiled.operations) {
    const json = contractJson(op.contract);
    chars += json.length;
    if (chars > limits.maxContractChars) {
      throw new AppError("payload_too_large", `The document is too costly to import: its operations' contracts would take more than ${Math.round(limits.maxContractChars / 1024 / 1024)} MB (each contract repeats every shared schema it reaches). Split it, or share fewer large schemas across operations.`, {
        details: { reason: "contract_size", max_contract_chars: limits.maxContractChars },
      });
    }
    if (input.gzip) texts.push(json);
  }
  budget.checkTime();
  const contracts = input.gzip ? pack(texts) : null;
  const specGzip = input.gzip ? new Uint8Array(gzipSync(loaded.canonical)) : null;
  return {
    title: compiled.title,
    description: compiled.description,
    servers: compiled.servers,
    version: loaded.version,
    sha256: loaded.sha256,
    warnings: compiled.warnings,
    dropped: compiled.dropped,
    cards: compiled.operations.map((o) => o.card),
    contracts,
    specGzip,
    stats: { work: budget.work, ms: Math.round(budget.elapsedMs), contractChars: chars, runner },
  };
}

/** An error as it crosses a thread boundary. */
export type WireError = { app: true; code: ErrorCode; message: string; details: Record<string, unknown>; status: number } | { app: false; message: string; stack?: string };

export function errorToWire(err: unknown): WireError {
  if (err instanceof AppError) return { app: true, code: err.code, message: err.message, details: err.details, status: err.status };
  const e = err instanceof Error ? err : new Error(String(err));
  return { app: false, message: e.message, stack: e.stack };
}

export function errorFromWire(w: WireError): Error {
  if (w.app) return new AppError(w.code, w.message, { details: w.details, status: w.status });
  const e = new Error(`Compiling the document failed: ${w.message}`);
  if (w.stack) e.stack = w.stack;
  return e;
}
