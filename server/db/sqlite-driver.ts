/**
 * Owns the SQLite database file (better-sqlite3): WAL, synchronous=FULL so a commit survives
 * power loss. One connection, so transactions take turns: while one is open every other call
 * waits, and transactions asked for in the same turn of the event loop share one commit.
 */
import { EventEmitter } from 'node:events';
import BetterSqlite3 from 'better-sqlite3';
import { runBatch, type Database, type SqlDriver, type TransactionOptions } from './driver.js';
import type { Row } from './types.js';

interface Waiting {
  work: (tx: SqlDriver) => Promise<unknown>;
  durable: boolean;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; err: unknown };

export function openSqlite(file: string): Database {
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  // The CLI and the server may open the same file; wait for a lock instead of failing.
  db.pragma('busy_timeout = 5000');
  // pg_notify for the SQL both databases share (./note-change-sql.ts): an event in this process,
  // sent a turn later so no listener runs inside a statement. A reader it wakes waits for the open
  // transaction like any other, so it reads what that transaction committed.
  const signals = new EventEmitter();
  signals.setMaxListeners(0);
  db.function('pg_notify', { deterministic: false }, (channel: unknown, payload: unknown) => {
    setImmediate(() => signals.emit(String(channel), String(payload)));
    return null;
  });

  // Each statement compiled once: compiling the limit checks on every note cost as much as running them.
  // Our SQL is a fixed set of strings; the cap only guards against a caller that builds them.
  const prepared = new Map<string, BetterSqlite3.Statement>();
  const prepare = (sql: string): BetterSqlite3.Statement => {
    let statement = prepared.get(sql);
    if (!statement) {
      if (prepared.size >= 500) prepared.clear();
      statement = db.prepare(sql);
      prepared.set(sql, statement);
    }
    return statement;
  };
  const allNow = (sql: string, params: unknown[] = []): Row[] => {
    const statement = prepare(sql);
    return statement.reader ? (statement.all(...params) as Row[]) : (statement.run(...params), []);
  };
  const runNow = (sql: string, params: unknown[] = []): number => prepare(sql).run(...params).changes;

  // better-sqlite3 is synchronous, but a transaction's work is async: without this turn-taking,
  // another request's statement could run inside it and be rolled back with it.
  // Every wait re-checks `held` in the same synchronous step that then runs its statement (or
  // takes the turn): an awaited helper would resume a microtask later, after a transaction that
  // woke on the same release may already have begun, and the statement would land inside it.
  let held: Promise<void> | undefined;
  const hold = (): (() => void) => {
    let release!: () => void;
    held = new Promise((resolve) => (release = resolve));
    return () => {
      held = undefined;
      release();
    };
  };

  let savepoints = 0;
  /** Runs work inside the open transaction; when it throws, only its own writes are undone. */
  async function savepoint<T>(work: (tx: SqlDriver) => Promise<T>): Promise<T> {
    const name = `sp${++savepoints}`;
    db.exec(`SAVEPOINT ${name}`);
    try {
      const result = await work(inside);
      db.exec(`RELEASE ${name}`);
      return result;
    } catch (err) {
      db.exec(`ROLLBACK TO ${name}`);
      db.exec(`RELEASE ${name}`);
      throw err;
    }
  }

  /** The driver handed to a transaction's work: runs at once, on the open transaction. */
  const inside: SqlDriver = {
    all: async (sql, params) => allNow(sql, params),
    run: async (sql, params) => runNow(sql, params),
    batch: (statements) => savepoint((tx) => runBatch(tx, statements)),
    transaction: savepoint,
  };

  // Group commit: one BEGIN ... COMMIT (one WAL fsync) for every transaction that arrived in the
  // same turn, each in its own savepoint so one failing undoes only itself. better-sqlite3 blocks
  // while it syncs, so under load the next group gathers by itself.
  let waiting: Waiting[] = [];
  async function commitGroup(): Promise<void> {
    while (held) await held;
    const group = waiting;
    waiting = [];
    const release = hold();
    const outcomes: Outcome[] = [];
    // A group syncs unless every transaction in it may skip that (TransactionOptions.durable). In WAL,
    // NORMAL skips the fsync at COMMIT; the next FULL commit's fsync, or a checkpoint, takes it along.
    const relaxed = group.every((w) => !w.durable);
    if (relaxed) db.pragma('synchronous = NORMAL');
    try {
      db.exec('BEGIN IMMEDIATE');
      for (const { work } of group) {
        try {
          outcomes.push({ ok: true, value: await savepoint(work) });
        } catch (err) {
          outcomes.push({ ok: false, err });
        }
      }
      db.exec('COMMIT');
    } catch (err) {
      if (db.inTransaction) db.exec('ROLLBACK');
      release();
      for (const w of group) w.reject(err);
      return;
    } finally {
      if (relaxed) db.pragma('synchronous = FULL');
    }
    release();
    group.forEach((w, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) w.resolve(outcome.value);
      else w.reject(outcome.err);
    });
  }

  function transaction<T>(work: (tx: SqlDriver) => Promise<T>, options?: TransactionOptions): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const durable = options?.durable !== false;
      const first = waiting.push({ work, durable, resolve: resolve as (value: unknown) => void, reject }) === 1;
      if (first) setImmediate(() => void commitGroup());
    });
  }

  return {
    kind: 'sqlite',
    async all(sql, params) {
      while (held) await held;
      return allNow(sql, params);
    },
    async run(sql, params) {
      while (held) await held;
      return runNow(sql, params);
    },
    batch: (statements) => transaction((tx) => runBatch(tx, statements)),
    transaction,
    // BEGIN IMMEDIATE takes the file's write lock first: a second process waits (busy_timeout).
    exclusive: transaction,
    async listen(channel, onSignal) {
      const listener = (payload: string) => onSignal(payload);
      signals.on(channel, listener);
      return async () => void signals.off(channel, listener);
    },
    async close() {
      while (held || waiting.length > 0) await (held ?? new Promise((resolve) => setImmediate(resolve)));
      db.close();
    },
  };
}
