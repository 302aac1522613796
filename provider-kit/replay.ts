// The replay cache: each request id is accepted once (docs/provider-protocol.md: "whose request_id it has seen
// before (keep them until they expire)"). In memory, so it covers one process only: several processes of one
// provider need a shared store (a database's unique key, Redis SET NX with an expiry) doing the same.
// Memory is bounded: expired ids are dropped, and when the cache is still full it refuses new ids rather than
// forget an unexpired one (forgetting would let that call be replayed).

export class ReplayCache {
  private readonly maxEntries: number;
  /** request id → expiry (ms since epoch). */
  private readonly seen = new Map<string, number>();
  /** The earliest expiry held, so a sweep runs only when something can be dropped. */
  private earliest = Number.POSITIVE_INFINITY;

  constructor(opts: { maxEntries?: number } = {}) {
    const max = opts.maxEntries ?? 100_000;
    if (!Number.isInteger(max) || max < 1) throw new RangeError("maxEntries must be a positive integer");
    this.maxEntries = max;
  }

  /** How many ids are held (expired ones included until the next sweep). */
  get size(): number {
    return this.seen.size;
  }

  /**
   * True the first time an id is seen (kept until `expiresAt`), false after. Also false for an id already expired,
   * and when the cache is full of unexpired ids.
   */
  use(requestId: string, expiresAt: Date, now: Date = new Date()): boolean {
    const at = now.getTime();
    const until = expiresAt.getTime();
    if (this.earliest <= at) this.sweep(at);
    const held = this.seen.get(requestId);
    if (held !== undefined && held > at) return false;
    // An id that has already expired cannot be kept until it expires: refuse it (verify refuses such a call anyway).
    if (!(until > at)) return false;
    if (held === undefined && this.seen.size >= this.maxEntries) return false;
    this.seen.set(requestId, until);
    if (until < this.earliest) this.earliest = until;
    return true;
  }

  private sweep(at: number): void {
    let earliest = Number.POSITIVE_INFINITY;
    for (const [id, until] of this.seen) {
      if (until <= at) this.seen.delete(id);
      else if (until < earliest) earliest = until;
    }
    this.earliest = earliest;
  }
}
