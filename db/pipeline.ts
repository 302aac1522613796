// A transaction's BEGIN and COMMIT ride with its first and last statements, each pair in one exchange with the
// server (PostgreSQL only; PGlite runs in this process and has no round trips to save).
//
// A round trip is the costly part of a statement on a small machine: the client's write, the server waking up, its
// answer, the client waking up — on this project's 2-core VMs ~0.1 ms of CPU on each side, more than most of the
// statements themselves. So a pooled client:
//
// - holds BEGIN back and sends it in front of the transaction's first statement: both go out in one write, ahead
//   of one Sync (the extended protocol's pipeline), and the server answers both at once. A transaction that sends
//   nothing (BEGIN then COMMIT or ROLLBACK) never reaches the server.
// - sends COMMIT right behind a statement its caller marked as the transaction's last (`commitWithNext`): the
//   audit append, whose lock on the tenant's chain head is then held for one exchange instead of two with the
//   app's event loop in between. The transaction's own COMMIT that follows is answered here.
//
// - sends a SAVEPOINT right behind a statement its caller marked (`savepointWithNext`): the savepoint a read's
//   effect may roll back to, behind gate one's statement, costs no exchange of its own.
//
// - holds a SAVEPOINT or a RELEASE SAVEPOINT (drizzle's nested transaction: a write's effect) back, as it holds
//   BEGIN, and sends it in front of the next statement: a write's savepoint goes with the effect's first statement
//   and its release with the audit append (and COMMIT). A savepoint nothing was sent after is never sent: released,
//   both vanish; rolled back to, the rollback is answered here (there is nothing to undo). A COMMIT or ROLLBACK
//   makes held savepoints and releases moot: they are dropped.
//
// - sends statements its caller gathered (`inOneExchange`: reads that do not depend on each other) in one write,
//   each with its own Bind, Describe and Execute, ahead of one Sync: one exchange instead of one each.
//
// - describes a named statement's rows once per connection: the first run asks the server (Describe) and keeps the
//   answer's row shape (its fields, and the empty row pg copies for each row); later runs of that statement on that
//   connection send no Describe and set their result up from the kept shape. A prepared statement's result columns
//   cannot change on the server (PostgreSQL refuses to run it: "cached plan must not change result type"), so the
//   kept shape stays true for as long as the connection has the statement. Gate one's row has ~35 columns: its
//   RowDescription was built, sent, parsed and turned into an empty row on every call.
//
// Semantics do not change: the server runs BEGIN, the statement and COMMIT in that order in one session. If the
// statement fails, the server skips the rest up to the Sync: the transaction stays open and failed, as if each
// had been its own round trip, and the caller's ROLLBACK follows as before. If COMMIT fails, the statement's promise
// fails with COMMIT's error and nothing was committed. Only statements pg would send with the extended protocol
// anyway (with parameters or a name) are paired: a statement without parameters may hold several commands, which
// the extended protocol refuses, so it goes after a BEGIN of its own.
import type { PoolClient } from "pg";

type QueryConfig = { text: string; values?: unknown[]; name?: string; rowMode?: string; types?: unknown; queryMode?: string };
type Connection = {
  parse(c: { text: string; name?: string; types?: unknown[] }): void;
  bind(c: { portal?: string; statement?: string; values?: unknown[] }): void;
  execute(c: { portal?: string; rows?: number }): void;
  sync(): void;
  describe(m: { type: string; name: string }): void;
  parsedStatements: Record<string, string>;
  submittedNamedStatements?: Record<string, string>;
};
type Callback = (err: Error | null, res: unknown) => void;
export type PgQueryClass = new (config: QueryConfig, values?: unknown[], callback?: Callback) => object;
type Send = (...args: unknown[]) => unknown;

/**
 * held: commands waiting to go in front of the next statement (BEGIN first, then SAVEPOINTs and RELEASEs, in the
 * order they were issued). commitNext: COMMIT goes behind the next statement. committed: it
 * went and succeeded. broken: it went and the exchange failed (with this error) — the transaction is failed or, if
 * COMMIT itself failed, already over, so nothing more may run in it (a statement would run outside any transaction).
 */
type State = {
  held: string[];
  commitNext: boolean;
  /** A SAVEPOINT (its name) to send right behind the next statement. */
  savepointNext: string | null;
  committed: boolean;
  broken: Error | null;
  /** Statements being gathered to go out together (`inOneExchange`), and how many are expected. */
  gather: { want: number; items: Gathered[] } | null;
  /** Send what was gathered (the pipelined client's own, set by `pipelineTransactions`). */
  flush: () => void;
};
type Gathered = { config: QueryConfig; resolve: (r: unknown) => void; reject: (e: unknown) => void };
// From the symbol registry, not `Symbol()`: Next.js compiles instrumentation.ts (which opens the database, so its
// copy of this module pipes the pool's clients) apart from the routes (whose copy marks a transaction's COMMIT,
// SAVEPOINT and batches). Each copy of the module is instantiated on its own; a symbol of its own made the routes'
// marks land where the pool never looked, and under `next start` every call went back to one exchange per statement.
const stateKey: unique symbol = Symbol.for("realmgate.pipeline");
/**
 * pg's client internals read here: `_txStatus`, the status of the server's last ReadyForQuery ('I' idle, 'T' in a
 * transaction, 'E' in a failed one); `readyForQuery`, no query in flight; `_queryQueue`, the queries waiting.
 */
type Piped = PoolClient & { [stateKey]?: State; connection?: Connection; _txStatus?: string | null; readyForQuery?: boolean; _queryQueue?: unknown[] };

/**
 * Whether the server's last word was "in a transaction, not failed" and nothing has been sent since. pg fails a
 * query on the server's ErrorResponse, before the ReadyForQuery that says 'E' is read: a caller that goes on
 * right after a failure finds the query still in flight (not ready), never a stale 'T'.
 */
const settledInTransaction = (c: Piped): boolean => c._txStatus === "T" && c.readyForQuery === true && (c._queryQueue?.length ?? 0) === 0;

const isBegin = (t: string) => /^\s*begin\s*$/i.test(t);
const isCommit = (t: string) => /^\s*commit\s*$/i.test(t);
const isRollback = (t: string) => /^\s*rollback\s*$/i.test(t);
/** What pg answers for a statement that returned nothing; what drizzle reads of a BEGIN, COMMIT or ROLLBACK. */
const emptyResult = (command: string) => ({ command, rowCount: null, oid: null, rows: [], fields: [] });

const SAVEPOINT_COMMAND = /^\s*savepoint\s+([a-z_][a-z0-9_]*)\s*$/i;
const RELEASE_COMMAND = /^\s*release\s+(?:savepoint\s+)?([a-z_][a-z0-9_]*)\s*$/i;
const ROLLBACK_TO_COMMAND = /^\s*rollback\s+(?:work\s+|transaction\s+)?to\s+(?:savepoint\s+)?([a-z_][a-z0-9_]*)\s*$/i;

/**
 * A SAVEPOINT, RELEASE or ROLLBACK TO taken into `held` (the commands that go in front of the next statement), and
 * what it is answered: null when it must reach the server (a rollback to a savepoint that statements followed).
 * Names are folded to lower case, as the server folds them unquoted.
 */
function hold(held: string[], text: string): ReturnType<typeof emptyResult> | null {
  let m = SAVEPOINT_COMMAND.exec(text);
  if (m) {
    held.push(`savepoint ${m[1]!.toLowerCase()}`);
    return emptyResult("SAVEPOINT");
  }
  m = RELEASE_COMMAND.exec(text);
  if (m) {
    const name = m[1]!.toLowerCase();
    const at = held.lastIndexOf(`savepoint ${name}`);
    // Nothing went after the savepoint (nor the savepoint): releasing it releases what was held after it too.
    if (at >= 0) held.splice(at);
    else held.push(`release savepoint ${name}`);
    return emptyResult("RELEASE");
  }
  m = ROLLBACK_TO_COMMAND.exec(text);
  if (m) {
    const at = held.lastIndexOf(`savepoint ${m[1]!.toLowerCase()}`);
    if (at < 0) return null;
    // Nothing went after the savepoint: there is nothing to undo; the savepoint stays (held), as ROLLBACK TO keeps it.
    held.splice(at + 1);
    return emptyResult("ROLLBACK");
  }
  return null;
}

/** Send one parameterless command inside an exchange (no Sync): the unnamed statement and portal. */
function command(connection: Connection, text: string): void {
  connection.parse({ text, name: "", types: [] });
  connection.bind({ portal: "", statement: "", values: [] });
  connection.execute({ portal: "", rows: 0 });
}

/** What of pg's Result a kept row shape sets: what its `addFields` would, from a RowDescription. */
type ResultInternals = { fields: unknown[]; _parsers?: unknown[]; _types?: { getTypeParser(oid: number, format: string): unknown }; _prebuiltEmptyResultObject: object | null };
/** A named statement's row shape on one connection: the fields the server described, and the empty row built from them. */
type RowShape = { fields: { dataTypeID: number; format?: string }[]; empty: object | null };
const shapesKey: unique symbol = Symbol.for("realmgate.pipeline.shapes");
type Shaped = Connection & { [shapesKey]?: Map<string, RowShape> };

/** The kept row shape of `name` on this connection, when the connection has the statement parsed and has described it. */
function keptShape(connection: Connection, name: string | undefined): RowShape | undefined {
  if (!name || connection.parsedStatements[name] === undefined) return undefined;
  return (connection as Shaped)[shapesKey]?.get(name);
}

/** Keep the row shape a result was just given (from the server's RowDescription of `name`). */
function keepShape(connection: Connection | null, name: string | undefined, result: ResultInternals): void {
  if (!connection || !name) return;
  const shapes = ((connection as Shaped)[shapesKey] ??= new Map());
  shapes.set(name, { fields: result.fields as RowShape["fields"], empty: result._prebuiltEmptyResultObject });
}

/** Set a result up from a kept shape, as `addFields` would: the fields, the empty row, each column's parser (of this query's types). */
function applyShape(result: ResultInternals, shape: RowShape, defaults: { getTypeParser(oid: number, format: string): unknown }): void {
  const types = result._types ?? defaults;
  result.fields = shape.fields;
  result._parsers = shape.fields.map((f) => types.getTypeParser(f.dataTypeID, f.format || "text"));
  result._prebuiltEmptyResultObject = shape.empty;
}

type QueryBase = new (...a: unknown[]) => {
  prepare(c: Connection): void;
  _getRows(c: Connection, rows?: number): void;
  handleCommandComplete(msg: unknown, c: Connection): void;
  handleRowDescription(msg: { fields: unknown[] }): void;
  portal: string;
  name?: string;
  values?: unknown[];
  binary?: boolean;
  _result: ResultInternals;
  _accumulateRows?: boolean;
  /** How the query is answered; pg's client wraps it (with `query_timeout`, the wrapper clears the read timer). */
  callback: Callback;
};

/** prefix: the commands held to go in front of the statement (BEGIN, SAVEPOINTs, RELEASEs); savepoint and commit go behind it. */
type PairedOpts = { prefix: string[]; commit: boolean; savepoint: string | null };
let Paired: (new (config: QueryConfig, opts: PairedOpts, callback: Callback) => object) | undefined;

/**
 * pg's Query, with the held commands (BEGIN, SAVEPOINTs, RELEASEs) sent before it and a SAVEPOINT or COMMIT after
 * it, ahead of its one Sync; their completions are not results. If any fails, the server skips what follows it up to
 * the Sync.
 */
function pairedClass(pg: PgDriver) {
  Paired ??= class extends (pg.Query as unknown as QueryBase) {
    private readonly opts: PairedOpts;
    private completions = 0;
    private connection: Connection | null = null;
    constructor(config: QueryConfig, opts: PairedOpts, callback: Callback) {
      super(config, undefined, callback);
      this.opts = opts;
    }
    prepare(connection: Connection) {
      for (const text of this.opts.prefix) command(connection, text);
      this.connection = connection;
      const shape = keptShape(connection, this.name);
      // pg's own way: Parse if needed, Bind, Describe (its answer is kept below), Execute.
      if (!shape) return super.prepare(connection);
      // Described before on this connection: Bind and Execute only, the result set up from the kept shape. Values
      // are mapped to their wire form first; one that cannot be sent goes pg's own way, which fails it as pg does.
      let values: unknown[];
      try {
        values = (this.values ?? []).map((v) => pg.utils.prepareValue(v));
      } catch {
        return super.prepare(connection);
      }
      connection.bind({ portal: this.portal, statement: this.name, values, binary: this.binary } as never);
      applyShape(this._result, shape, pg.types);
      // What pg's handleRowDescription sets: rows are gathered into the result (a Paired query always has a callback).
      this._accumulateRows = true;
      this._getRows(connection);
    }
    handleRowDescription(msg: { fields: unknown[] }) {
      super.handleRowDescription(msg);
      keepShape(this.connection, this.name, this._result);
    }
    _getRows(connection: Connection) {
      connection.execute({ portal: this.portal, rows: 0 });
      if (this.opts.savepoint) command(connection, `savepoint ${this.opts.savepoint}`);
      if (this.opts.commit) command(connection, "commit");
      connection.sync();
    }
    handleCommandComplete(msg: unknown, connection: Connection) {
      const n = this.completions++;
      // Only the statement's own completion is its result: the held commands' come before it, SAVEPOINT's and COMMIT's after.
      if (n !== this.opts.prefix.length) return;
      super.handleCommandComplete(msg, connection);
    }
  } as never;
  return Paired!;
}

/** A savepoint's name as the server takes it unquoted. */
const SAVEPOINT_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

type ResultLike = { addFields(f: unknown): void; parseRow(f: unknown): unknown; addRow(r: unknown): void; addCommandComplete(m: unknown): void };
type ResultClass = new (rowMode?: string, types?: unknown) => ResultLike;
/** What is used of the pg module: its Query (subclassed here), Result, the mapping of values to their wire form, and its default type parsers. */
export type PgDriver = { Query: PgQueryClass; Result: ResultClass; utils: { prepareValue(v: unknown): unknown }; types: { getTypeParser(oid: number, format: string): unknown } };

type BatchItem = { config: QueryConfig; values: unknown[] };
let Batch: (new (items: BatchItem[], prefix: string[], done: (err: Error | null, results: ResultLike[]) => void) => object) | undefined;

/**
 * pg's Query, carrying several named statements its connection has already parsed: the held commands (BEGIN, SAVEPOINTs, RELEASEs), then Bind, Describe
 * and Execute for each, then one Sync. The server answers each in turn; each statement gets its own result.
 */
function batchClass(pg: PgDriver) {
  Batch ??= class extends (pg.Query as unknown as QueryBase) {
    private readonly items: BatchItem[];
    private readonly prefix: string[];
    private readonly results: ResultLike[];
    private at = 0;
    /** Completions of the held commands still to come before the first statement's. */
    private ahead: number;
    private failed: Error | null = null;
    private over = false;
    private connection: Connection | null = null;
    constructor(items: BatchItem[], prefix: string[], done: (err: Error | null, results: ResultLike[]) => void) {
      // The batch itself has no name: pg records no parsed statement for it. Its answer goes through pg's own
      // `callback`, which pg's client wraps: with `query_timeout` set, the wrapper is what clears the query's read
      // timer. (Calling `done` past it left one timer per batch pending for the whole timeout, and with it the
      // request that sent the batch: under load, hundreds of MB of finished requests, promoted and collected late.)
      super({ text: "-- batch", queryMode: "extended" }, undefined, done);
      this.items = items;
      this.prefix = prefix;
      this.ahead = prefix.length;
      this.results = items.map((i) => new pg.Result(i.config.rowMode, i.config.types));
    }
    requiresPreparation() {
      return true;
    }
    prepare(connection: Connection) {
      this.connection = connection;
      for (const text of this.prefix) command(connection, text);
      this.items.forEach((item, k) => {
        connection.bind({ portal: "", statement: item.config.name, values: item.values });
        // A statement described before on this connection is not described again: its result takes the kept shape.
        const shape = keptShape(connection, item.config.name);
        if (shape) applyShape(this.results[k] as unknown as ResultInternals, shape, pg.types);
        else connection.describe({ type: "P", name: "" });
        connection.execute({ portal: "", rows: 0 });
      });
      connection.sync();
    }
    handleRowDescription(msg: { fields: unknown[] }) {
      const result = this.results[this.at];
      if (!result) return;
      result.addFields(msg.fields);
      keepShape(this.connection, this.items[this.at]?.config.name, result as unknown as ResultInternals);
    }
    handleDataRow(msg: { fields: unknown }) {
      const result = this.results[this.at];
      if (this.failed || !result) return;
      try {
        result.addRow(result.parseRow(msg.fields));
      } catch (err) {
        this.failed = err as Error;
      }
    }
    handleCommandComplete(msg: unknown) {
      if (this.ahead > 0) {
        this.ahead--;
        return;
      }
      this.results[this.at++]?.addCommandComplete(msg);
    }
    handleEmptyQuery() {}
    handleError(err: Error) {
      this.finish(this.failed ?? err);
    }
    handleReadyForQuery() {
      this.finish(this.failed);
    }
    private finish(err: Error | null) {
      if (this.over) return;
      this.over = true;
      this.callback(err, this.results);
    }
  } as never;
  return Batch!;
}

/**
 * A pooled client's query function that pairs BEGIN and COMMIT with statements. `sendToServer` is pg's own
 * `client.query`; the arguments it is given carry their statement names already (db/prepared.ts). `onExchange` is
 * told of each exchange with the server (for the round-trip count).
 */
export function pipelineTransactions(client: PoolClient, pg: PgDriver, sendToServer: Send, onExchange: () => void = () => {}): Send {
  const c = client as Piped;
  // Every call of `send` is one exchange with the server (a paired statement included).
  const send: Send = (...args) => {
    onExchange();
    return sendToServer(...args);
  };
  const state: State = { held: [], commitNext: false, savepointNext: null, committed: false, broken: null, gather: null, flush: () => {} };
  c[stateKey] = state;
  // A statement may join a batch when its connection has parsed it already (its Bind names it) and it is not read in pages.
  const gatherable = (config: QueryConfig): boolean => {
    const connection = c.connection;
    return connection !== undefined && config.name !== undefined && connection.parsedStatements[config.name] !== undefined && (config as { rows?: unknown }).rows === undefined;
  };
  // Gathered statements that cannot go as one batch go one after another, each once the one before it is answered
  // (never two on the client at once), the first with the BEGIN held for it.
  const inTurn = async (items: Gathered[]) => {
    for (const i of items) await (query(i.config) as Promise<unknown>).then(i.resolve, i.reject);
  };
  state.flush = () => {
    const g = state.gather;
    state.gather = null;
    if (!g || g.items.length === 0) return;
    // A batch needs each statement prepared on this connection already (its Bind names it).
    if (g.items.length === 1 || !g.items.every((i) => gatherable(i.config))) return void inTurn(g.items);
    // Values are mapped to their wire form first: a value that cannot be sent fails here, before anything is written.
    let items: BatchItem[];
    try {
      items = g.items.map((i) => ({ config: i.config, values: (i.config.values ?? []).map((v) => pg.utils.prepareValue(v)) }));
    } catch {
      // Each goes the ordinary way, and the one that cannot be sent fails on its own.
      return void inTurn(g.items);
    }
    const held = state.held;
    state.held = [];
    const B = batchClass(pg);
    send(
      new B(items, held, (err, results) => {
        g.items.forEach((item, k) => (err ? item.reject(err) : item.resolve(results[k])));
      }),
    );
  };
  // Held commands (a BEGIN first) sent on their own, until they are answered: statements issued meanwhile
  // (concurrently, in one transaction) wait for them too, in the order they came, and never reach the server ahead.
  let beginning: Promise<unknown> | null = null;
  const sendHeld = (held: string[]) => {
    const sent = (send(held.join("; ")) as Promise<unknown>).finally(() => {
      if (beginning === sent) beginning = null;
    });
    beginning = sent;
    return sent;
  };
  const query = (...args: unknown[]): unknown => {
    const config = configOf(args);
    const text = config?.text ?? "";
    const bare = !config?.values?.length;
    if (state.committed) {
      // The statement marked last carried COMMIT: the transaction's own COMMIT (or a ROLLBACK after it, which has
      // nothing left to undo) is answered here; anything else would run outside the transaction, so it fails.
      state.committed = false;
      if (config && bare && (isCommit(text) || isRollback(text))) return Promise.resolve(emptyResult(isCommit(text) ? "COMMIT" : "ROLLBACK"));
      return Promise.reject(new Error("A statement was sent after the one that committed its transaction."));
    }
    if (state.broken) {
      // Only the transaction's ROLLBACK goes on (to a failed transaction, or a warning from a server with none).
      // Anything else fails, unsent, with the error that broke the transaction (a lost connection stays one).
      if (config && bare && isRollback(text)) {
        state.broken = null;
        return send(...args);
      }
      return Promise.reject(state.broken);
    }
    if (beginning && config) {
      // (A callback or a Query object cannot wait on a promise; queued behind the BEGIN already sent, it follows it.)
      const after = beginning;
      const savepoint = state.savepointNext;
      state.savepointNext = null;
      const sent = after.then(() => send(...args));
      return savepoint ? sent.then(async (res) => (await send(`savepoint ${savepoint}`), res)) : sent;
    }
    // A write's savepoint and its release wait for the next statement (or vanish with nothing sent between them):
    // only inside a transaction known to be open and not failed, where the server would run them without fail; elsewhere
    // they go as they come and fail, or not, as they would.
    if (config && bare && !state.gather && !state.commitNext && !state.savepointNext && (state.held.length > 0 || settledInTransaction(c))) {
      const answer = hold(state.held, text);
      if (answer) return Promise.resolve(answer);
    }
    const g = state.gather;
    if (g) {
      if (!state.commitNext && !state.savepointNext && config !== null) {
        return new Promise((resolve, reject) => {
          g.items.push({ config, resolve, reject });
          if (g.items.length >= g.want) state.flush();
        });
      }
      // What was gathered goes first, in the order it came; this statement follows it the ordinary way.
      state.flush();
    }
    if (state.held.length === 0 && !state.commitNext && !state.savepointNext) {
      if (config && bare && isBegin(text)) {
        state.held = ["begin"];
        return Promise.resolve(emptyResult("BEGIN"));
      }
      return send(...args);
    }
    let held = state.held;
    const commit = state.commitNext;
    const savepoint = state.savepointNext;
    state.held = [];
    state.commitNext = false;
    state.savepointNext = null;
    if (config && bare && (isCommit(text) || isRollback(text))) {
      // Nothing was sent in the transaction: there is nothing to commit or roll back.
      if (held[0] === "begin") return Promise.resolve(emptyResult(isCommit(text) ? "COMMIT" : "ROLLBACK"));
      // COMMIT releases every savepoint and ROLLBACK undoes them: what was held need not go.
      held = [];
    }
    const connection = c.connection;
    // A named statement this connection has not parsed yet is not paired: pg records a name as parsed on the first
    // ParseComplete of an exchange, which would be BEGIN's, even if the statement's own Parse then failed.
    const unparsed = config?.name !== undefined && connection?.parsedStatements[config.name] === undefined && connection?.submittedNamedStatements?.[config.name] === undefined;
    const paged = (config as { rows?: unknown } | null)?.rows !== undefined;
    const pairable = config !== null && connection !== undefined && !unparsed && !paged && (!bare || config.name !== undefined);
    if (!pairable) {
      // The ordinary way: the held commands first (pg sends queued queries in order), the statement, then the
      // SAVEPOINT on its own once the statement succeeded, and COMMIT is left to the transaction's own.
      const withSavepoint = (sent: unknown) =>
        savepoint ? Promise.resolve(sent).then(async (res) => (await send(`savepoint ${savepoint}`), res)) : sent;
      if (held.length === 0) return withSavepoint(send(...args));
      if (!config) {
        sendHeld(held).catch(() => {});
        return withSavepoint(send(...args));
      }
      return withSavepoint(sendHeld(held).then(() => send(...args)));
    }
    return new Promise((resolve, reject) => {
      const P = pairedClass(pg);
      send(
        new P({ ...config, queryMode: "extended" }, { prefix: held, commit, savepoint }, (err, res) => {
          if (err) {
            if (commit) state.broken = err;
            return reject(err);
          }
          if (commit) state.committed = true;
          resolve(res);
        }),
      );
    });
  };
  return query;
}

/**
 * Mark the next statement on this transaction as its last: COMMIT is sent right behind it, in the same exchange.
 * The caller must send nothing else in the transaction after it (a statement sent after it fails, unsent). On a
 * database without pipelining (PGlite), or a transaction on another kind of client, this does nothing.
 */
export function commitWithNext(exec: unknown): void {
  const tx = exec as { session?: { client?: Piped }; nestedIndex?: number; rollback?: unknown };
  // Only a transaction's own top level: inside a savepoint COMMIT would end the enclosing transaction.
  if (typeof tx.rollback !== "function" || tx.nestedIndex !== 0) return;
  const state = tx.session?.client?.[stateKey];
  if (state) state.commitNext = true;
}

/**
 * Send `savepoint <name>` right behind the next statement on this transaction, in the same exchange, and say so
 * (true); the savepoint exists once that statement has succeeded. False where there is no pipelining (PGlite, or
 * a transaction on another kind of client): the caller then sends the SAVEPOINT itself, after that statement. If
 * the next statement cannot carry it (not prepared on its connection yet, read in pages, or without parameters),
 * the SAVEPOINT follows it on its own.
 */
export function savepointWithNext(exec: unknown, name: string): boolean {
  if (!SAVEPOINT_NAME.test(name)) throw new Error(`Not a savepoint name: ${name}`);
  const tx = exec as { session?: { client?: Piped }; rollback?: unknown };
  if (typeof tx.rollback !== "function") return false;
  const state = tx.session?.client?.[stateKey];
  if (!state || state.commitNext || state.gather) return false;
  state.savepointNext = name;
  return true;
}

/** A SAVEPOINT marked with `savepointWithNext` that no statement has carried yet: unmarked, and true (the caller sends it). */
export function takeBackSavepoint(exec: unknown, name: string): boolean {
  const state = (exec as { session?: { client?: Piped } }).session?.client?.[stateKey];
  if (!state || state.savepointNext !== name) return false;
  state.savepointNext = null;
  return true;
}

/** For a pool's `acquire`: a checkout starts with nothing held (a client is never released mid-transaction). */
export function resetPipeline(client: PoolClient): void {
  const state = (client as Piped)[stateKey];
  if (state) {
    state.held = [];
    state.commitNext = false;
    state.savepointNext = null;
    state.committed = false;
    state.broken = null;
    state.gather = null;
  }
}

/**
 * Run reads that do not depend on each other so that their statements go to the server in one exchange (PostgreSQL,
 * in a transaction). What they give is Promise.all's. Statements sent while gathering are held until there are as
 * many as thunks, or until the end of this turn of the event loop, whichever comes first (a thunk that sends nothing,
 * or waits before it sends, only costs the batching); then they go as one batch if their connection has prepared
 * each of them, else one after another. Elsewhere (PGlite, no transaction, a batch already gathering) they simply
 * run concurrently.
 */
export function inOneExchange<T extends readonly unknown[]>(exec: unknown, thunks: { [K in keyof T]: () => Promise<T[K]> }): Promise<T> {
  const state = (exec as { session?: { client?: Piped } }).session?.client?.[stateKey];
  const run = () => Promise.all(thunks.map((f) => f())) as unknown as Promise<T>;
  if (!state || state.gather || state.committed || state.broken || thunks.length < 2) return run();
  state.gather = { want: thunks.length, items: [] };
  const gathering = state.gather;
  let all: Promise<T>;
  try {
    all = run();
  } finally {
    setImmediate(() => {
      if (state.gather === gathering) state.flush();
    });
  }
  return all;
}

/** The query's config when it is pg's promise form — (text, values?) or (config, values?) — else null. */
function configOf(args: unknown[]): QueryConfig | null {
  const [first, second, third] = args;
  if (typeof second === "function" || typeof third === "function") return null;
  const values = Array.isArray(second) ? second : undefined;
  if (typeof first === "string") return { text: first, values };
  if (!first || typeof first !== "object" || typeof (first as QueryConfig).text !== "string") return null;
  if (typeof (first as { submit?: unknown }).submit === "function") return null;
  const config = first as QueryConfig;
  return values ? { ...config, values } : { ...config };
}
