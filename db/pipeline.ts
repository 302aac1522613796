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
  parsedStatements: Record<string, string>;
  submittedNamedStatements?: Record<string, string>;
};
type Callback = (err: Error | null, res: unknown) => void;
export type PgQueryClass = new (config: QueryConfig, values?: unknown[], callback?: Callback) => object;
type Send = (...args: unknown[]) => unknown;

/**
 * beginHeld: BEGIN waits for the next statement. commitNext: COMMIT goes behind the next statement. committed: it
 * went and succeeded. broken: it went and the exchange failed (with this error) — the transaction is failed or, if
 * COMMIT itself failed, already over, so nothing more may run in it (a statement would run outside any transaction).
 */
type State = { beginHeld: boolean; commitNext: boolean; committed: boolean; broken: Error | null };
const stateKey = Symbol("realmgate.pipeline");
type Piped = PoolClient & { [stateKey]?: State; connection?: Connection };

const isBegin = (t: string) => /^\s*begin\s*$/i.test(t);
const isCommit = (t: string) => /^\s*commit\s*$/i.test(t);
const isRollback = (t: string) => /^\s*rollback\s*$/i.test(t);

/** What pg answers for a statement that returned nothing; what drizzle reads of a BEGIN, COMMIT or ROLLBACK. */
const emptyResult = (command: string) => ({ command, rowCount: null, oid: null, rows: [], fields: [] });

/** Send one parameterless command inside an exchange (no Sync): the unnamed statement and portal. */
function command(connection: Connection, text: string): void {
  connection.parse({ text, name: "", types: [] });
  connection.bind({ portal: "", statement: "", values: [] });
  connection.execute({ portal: "", rows: 0 });
}

type QueryBase = new (...a: unknown[]) => {
  prepare(c: Connection): void;
  _getRows(c: Connection, rows?: number): void;
  handleCommandComplete(msg: unknown, c: Connection): void;
  portal: string;
};

let Paired: (new (config: QueryConfig, opts: { begin: boolean; commit: boolean }, callback: Callback) => object) | undefined;

/** pg's Query, with BEGIN sent before it and COMMIT after it, ahead of its one Sync; their completions are not results. */
function pairedClass(Query: PgQueryClass) {
  Paired ??= class extends (Query as unknown as QueryBase) {
    private readonly begin: boolean;
    private readonly commit: boolean;
    private completions = 0;
    constructor(config: QueryConfig, opts: { begin: boolean; commit: boolean }, callback: Callback) {
      super(config, undefined, callback);
      this.begin = opts.begin;
      this.commit = opts.commit;
    }
    prepare(connection: Connection) {
      if (this.begin) command(connection, "begin");
      super.prepare(connection);
    }
    _getRows(connection: Connection) {
      connection.execute({ portal: this.portal, rows: 0 });
      if (this.commit) command(connection, "commit");
      connection.sync();
    }
    handleCommandComplete(msg: unknown, connection: Connection) {
      const n = this.completions++;
      // BEGIN's completion (first, when sent) and COMMIT's (after the statement's) are not the statement's result.
      if (this.begin && n === 0) return;
      if (this.commit && n === (this.begin ? 2 : 1)) return;
      super.handleCommandComplete(msg, connection);
    }
  } as never;
  return Paired!;
}

/**
 * A pooled client's query function that pairs BEGIN and COMMIT with statements. `sendToServer` is pg's own
 * `client.query`; the arguments it is given carry their statement names already (db/prepared.ts). `onExchange` is
 * told of each exchange with the server (for the round-trip count).
 */
export function pipelineTransactions(client: PoolClient, Query: PgQueryClass, sendToServer: Send, onExchange: () => void = () => {}): Send {
  const c = client as Piped;
  // Every call of `send` is one exchange with the server (a paired statement included).
  const send: Send = (...args) => {
    onExchange();
    return sendToServer(...args);
  };
  const state: State = { beginHeld: false, commitNext: false, committed: false, broken: null };
  c[stateKey] = state;
  // A BEGIN sent on its own, until it is answered: statements issued meanwhile (concurrently, in one transaction)
  // wait for it too, in the order they came, and never reach the server ahead of it.
  let beginning: Promise<unknown> | null = null;
  const sendBegin = () => {
    const sent = (send("begin") as Promise<unknown>).finally(() => {
      if (beginning === sent) beginning = null;
    });
    beginning = sent;
    return sent;
  };
  return (...args: unknown[]) => {
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
      return after.then(() => send(...args));
    }
    if (!state.beginHeld && !state.commitNext) {
      if (config && bare && isBegin(text)) {
        state.beginHeld = true;
        return Promise.resolve(emptyResult("BEGIN"));
      }
      return send(...args);
    }
    const begin = state.beginHeld;
    const commit = state.commitNext;
    state.beginHeld = false;
    state.commitNext = false;
    // Nothing was sent in the transaction: there is nothing to commit or roll back.
    if (begin && config && bare && (isCommit(text) || isRollback(text))) return Promise.resolve(emptyResult(isCommit(text) ? "COMMIT" : "ROLLBACK"));
    const connection = c.connection;
    // A named statement this connection has not parsed yet is not paired: pg records a name as parsed on the first
    // ParseComplete of an exchange, which would be BEGIN's, even if the statement's own Parse then failed.
    const unparsed = config?.name !== undefined && connection?.parsedStatements[config.name] === undefined && connection?.submittedNamedStatements?.[config.name] === undefined;
    const paged = (config as { rows?: unknown } | null)?.rows !== undefined;
    const pairable = config !== null && connection !== undefined && !unparsed && !paged && (!bare || config.name !== undefined);
    if (!pairable) {
      // The ordinary way: BEGIN first (pg sends queued queries in order), the statement, and COMMIT is left to the
      // transaction's own.
      if (!begin) return send(...args);
      if (!config) {
        sendBegin().catch(() => {});
        return send(...args);
      }
      return sendBegin().then(() => send(...args));
    }
    return new Promise((resolve, reject) => {
      const P = pairedClass(Query);
      send(
        new P({ ...config, queryMode: "extended" }, { begin, commit }, (err, res) => {
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

/** For a pool's `acquire`: a checkout starts with nothing held (a client is never released mid-transaction). */
export function resetPipeline(client: PoolClient): void {
  const state = (client as Piped)[stateKey];
  if (state) {
    state.beginHeld = false;
    state.commitNext = false;
    state.committed = false;
    state.broken = null;
  }
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
