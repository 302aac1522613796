// The cost cap of reading and compiling one document: a work counter (document nodes walked, schema nodes
// converted, `$defs` entries copied into contracts) and a time budget, checked as the work is done, plus a cap
// on the size of the compiled contracts (they are stored, one per operation). Exceeding any of them answers
// `payload_too_large` naming the limit — never a hang. In a worker thread the time budget is also enforced from
// outside (the thread is terminated), so even a step that cannot check it (parsing YAML) stays bounded.
import { AppError } from "@/lib/errors";

export type CompileLimits = {
  /** Units of work: one per document node walked, schema node converted or `$defs` entry placed in a contract. */
  maxWork: number;
  /** Wall-clock budget of the whole read + compile, in milliseconds. */
  timeMs: number;
  /** Characters of compiled contract JSON, summed over every operation. */
  maxContractChars: number;
};

export const DEFAULT_LIMITS: CompileLimits = {
  // GitHub's REST API (13 MB, 1,223 operations) takes ~190 k units, 1,000 operations sharing a 200-schema chain
  // ~230 k (200 k of them the defs each contract lists); a 50 MB document of GitHub's shape would take ~750 k.
  maxWork: 5_000_000,
  // GitHub compiles in ~1 s; the budget is for documents far larger, on a busy machine.
  timeMs: 30_000,
  // GitHub's contracts take 1.6 MB; the 1,000 × 200-chain document's 44 MB (each contract repeats the chain).
  maxContractChars: 64 * 1024 * 1024,
};

export class CompileBudget {
  work = 0;
  private readonly started = performance.now();
  private nextClockCheck = 4096;

  constructor(readonly limits: CompileLimits = DEFAULT_LIMITS) {}

  get elapsedMs(): number {
    return performance.now() - this.started;
  }

  /** Count `n` units of work; throws `payload_too_large` past the work or time budget. */
  spend(n = 1): void {
    this.work += n;
    if (this.work > this.limits.maxWork) {
      throw new AppError("payload_too_large", `The document is too costly to import: compiling it takes more than ${this.limits.maxWork.toLocaleString("en-US")} units of work (schema nodes visited and copied). Split it, or share fewer large schemas across operations.`, {
        details: { reason: "work_budget", max_work: this.limits.maxWork },
      });
    }
    if (this.work >= this.nextClockCheck) {
      this.nextClockCheck = this.work + 4096;
      this.checkTime();
    }
  }

  checkTime(): void {
    if (this.elapsedMs > this.limits.timeMs) throw timeBudgetError(this.limits.timeMs);
  }
}

export const timeBudgetError = (timeMs: number) =>
  new AppError("payload_too_large", `The document is too costly to import: reading and compiling it takes longer than ${Math.round(timeMs / 1000)} s. Split it into smaller documents.`, {
    details: { reason: "time_budget", time_ms: timeMs },
  });
