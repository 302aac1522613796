// Runs imports' compile jobs (compile-job.ts) off the main thread, so a costly document never stalls the
// server. Up to MAX_RUNNING worker threads, each running one job at a time under the job's cost cap, a heap
// limit, and its time budget enforced from outside (a worker past it is terminated); an idle worker is kept
// for IDLE_MS, then ended. Beyond MAX_RUNNING jobs, MAX_WAITING wait their turn; more answer `rate_limited`.
//
// Where the worker comes from — the first way that starts, remembered per process:
//   1. `new Worker(new URL("./compile-worker.ts", import.meta.url))`: under Next.js the bundler (Turbopack or
//      webpack) emits the worker entry as a chunk of its own and points this URL at it.
//   2. Running from TypeScript sources outside Next.js (vitest, tsx): an `eval` worker that registers tsx's
//      loader (with the project's tsconfig, for `@/` paths) and imports compile-worker.ts.
//   3. Neither: the job runs in-process with the same cost cap (the time budget is then checked as the work
//      goes, not enforced from outside), and a warning is logged once.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";
import { AppError } from "@/lib/errors";
import { DEFAULT_LIMITS, timeBudgetError } from "./budget";
import { errorFromWire, runCompileJob, type CompileJobInput, type CompileJobResult, type WireError } from "./compile-job";

export const MAX_RUNNING = 2;
export const MAX_WAITING = 8;
/** Old-generation heap of one compile worker (GitHub's 13 MB document needs a few hundred MB). */
export const WORKER_HEAP_MB = 2048;
const IDLE_MS = 30_000;
/** How long a worker may take to load before the next way is tried. */
const START_TIMEOUT_MS = 30_000;

type Way = "bundled" | "tsx";
export type RunnerMode = "auto" | "inline";

let mode: RunnerMode = "auto";
/** Ways that did not start in this process, with why (logged if none starts). */
const failedWays = new Map<Way, string>();
let warnedInline = false;

/** Tests and benches: force in-process compiles (`inline`), or go back to workers (`auto`). */
export function setCompileRunner(m: RunnerMode): void {
  mode = m;
}

/** The ways a worker may start in this process, in order of preference. */
function ways(): Way[] {
  const out: Way[] = ["bundled"];
  const here = import.meta.url;
  if (!process.env.NEXT_RUNTIME && here.startsWith("file:") && here.endsWith(".ts")) out.push("tsx");
  return out.filter((w) => !failedWays.has(w));
}

const TSX_BOOT = `
const { workerData } = require("node:worker_threads");
import("tsx/esm/api").then(({ register }) => {
  register({ tsconfig: workerData.tsconfig });
  return import(workerData.entry);
});
`;

const resourceLimits: WorkerOptions["resourceLimits"] = { maxOldGenerationSizeMb: WORKER_HEAP_MB };

function spawn(way: Way): Worker {
  // Keep this call exactly so: bundlers recognise `new Worker(new URL("./…", import.meta.url))` and emit the entry.
  if (way === "bundled") return new Worker(new URL("./compile-worker.ts", import.meta.url), { resourceLimits });
  const dir = path.dirname(fileURLToPath(import.meta.url));
  const entry = pathToFileURL(path.join(dir, "compile-worker.ts")).href;
  // `eval: true` written out, so a bundler sees this is code, not a file to resolve (Turbopack skips it).
  return new Worker(TSX_BOOT, { eval: true, resourceLimits, workerData: { entry, tsconfig: path.resolve(dir, "../../../tsconfig.json") } });
}

/** A worker that could not load: this way does not work here (not retried in this process). */
class StartFailure extends Error {}

type Message = { type: "ready" } | { type: "done"; id: number; result: CompileJobResult } | { type: "error"; id: number; error: WireError };
type Job = { id: number; resolve: (r: CompileJobResult) => void; reject: (e: Error) => void; timer: NodeJS.Timeout };

let nextId = 1;

/** One worker thread: started once, then given one job at a time. */
class Slot {
  private job: Job | null = null;
  private dead = false;
  private idleTimer: NodeJS.Timeout | null = null;
  readonly ready: Promise<void>;

  constructor(private readonly worker: Worker) {
    let loaded = false;
    this.ready = new Promise<void>((resolve, reject) => {
      // Slow to load is not "cannot load" (a busy machine): this import fails, the way stays in use.
      const timer = setTimeout(
        () => fail(new AppError("service_unavailable", "The import could not start in time (the server is busy); try again shortly.", { details: { reason: "compile_worker_start_timeout" }, headers: { "Retry-After": "10" } })),
        START_TIMEOUT_MS,
      );
      const fail = (e: Error) => {
        clearTimeout(timer);
        this.kill();
        reject(e);
      };
      worker.on("message", (m: Message) => {
        if (m.type === "ready") {
          loaded = true;
          clearTimeout(timer);
          resolve();
        } else this.answer(m);
      });
      worker.on("error", (err: Error & { code?: string }) => {
        if (!loaded) return fail(new StartFailure(err.message, { cause: err }));
        this.die(
          err.code === "ERR_WORKER_OUT_OF_MEMORY"
            ? new AppError("payload_too_large", `The document is too large to compile within ${WORKER_HEAP_MB} MB of memory. Split it into smaller documents.`, { details: { reason: "memory", max_heap_mb: WORKER_HEAP_MB } })
            : new Error(`Compiling the document failed: ${err.message}`, { cause: err }),
        );
      });
      worker.on("exit", (code) => {
        if (!loaded) return fail(new StartFailure(`exited with code ${code} before loading`));
        this.die(new Error(`The compile worker stopped (exit code ${code}).`));
      });
    });
  }

  get alive(): boolean {
    return !this.dead;
  }

  run(job: CompileJobInput, timeMs: number): Promise<CompileJobResult> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.worker.ref();
    return new Promise<CompileJobResult>((resolve, reject) => {
      const id = nextId++;
      // Past its budget (and a second's grace) the worker is ended, whatever it is doing.
      const timer = setTimeout(() => this.die(timeBudgetError(timeMs)), timeMs + 1000);
      this.job = { id, resolve, reject, timer };
      this.worker.postMessage({ id, job });
    });
  }

  /** Back to the idle list: ended after IDLE_MS, and never keeps the process alive. */
  park(onEnd: () => void): void {
    this.worker.unref();
    this.idleTimer = setTimeout(() => {
      onEnd();
      this.kill();
    }, IDLE_MS);
    this.idleTimer.unref();
  }

  private answer(m: Exclude<Message, { type: "ready" }>) {
    const job = this.job;
    if (!job || job.id !== m.id) return;
    this.job = null;
    clearTimeout(job.timer);
    if (m.type === "done") job.resolve(m.result);
    else job.reject(errorFromWire(m.error));
  }

  private die(err: Error) {
    const job = this.job;
    this.job = null;
    this.kill();
    if (job) {
      clearTimeout(job.timer);
      job.reject(err);
    }
  }

  kill() {
    if (this.dead) return;
    this.dead = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    void this.worker.terminate();
  }
}

const idle: Slot[] = [];

async function startSlot(): Promise<Slot | null> {
  for (const way of ways()) {
    try {
      let worker: Worker;
      try {
        worker = spawn(way);
      } catch (cause) {
        throw new StartFailure((cause as Error).message, { cause });
      }
      const slot = new Slot(worker);
      await slot.ready;
      return slot;
    } catch (err) {
      if (!(err instanceof StartFailure)) throw err;
      // What stops a worker from loading (a bundler that did not emit it, no TypeScript loader) rules this
      // way out for the process.
      failedWays.set(way, err.message.split("\n")[0]!.slice(0, 300));
    }
  }
  return null;
}

async function run(job: CompileJobInput): Promise<CompileJobResult> {
  const timeMs = job.limits?.timeMs ?? DEFAULT_LIMITS.timeMs;
  if (mode === "auto") {
    let slot: Slot | null = null;
    while (!slot && idle.length) {
      const s = idle.pop()!;
      if (s.alive) slot = s;
    }
    slot ??= await startSlot();
    if (slot) {
      const s = slot;
      try {
        return await s.run(job, timeMs);
      } finally {
        // A job that failed (a bad document, its cost cap) leaves the worker fine; one that killed it does not.
        if (s.alive) {
          idle.push(s);
          s.park(() => {
            const i = idle.indexOf(s);
            if (i >= 0) idle.splice(i, 1);
          });
        }
      }
    }
    if (!warnedInline) {
      warnedInline = true;
      const why = [...failedWays].map(([way, reason]) => `${way}: ${reason}`).join("; ");
      console.warn(`[realmgate] No worker thread could start for OpenAPI imports (${why}); compiling them in-process (same cost cap, but it blocks the event loop).`);
    }
  }
  return runCompileJob(job, "inline");
}

let running = 0;
const waiting: (() => void)[] = [];

/** Read and compile a document off the main thread, bounded; see the top of this file. */
export async function compileDocument(job: CompileJobInput): Promise<CompileJobResult> {
  if (running >= MAX_RUNNING) {
    if (waiting.length >= MAX_WAITING) {
      throw new AppError("rate_limited", "Too many documents are being imported right now; try again in a minute.", { details: { reason: "import_queue_full" }, headers: { "Retry-After": "30" } });
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else running++;
  try {
    return await run(job);
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}
