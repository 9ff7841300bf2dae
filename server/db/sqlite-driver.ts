/**
 * Owns the SQLite database file (better-sqlite3): WAL, synchronous=FULL so a commit survives
 * power loss. One connection, so transactions take turns: while one is open every other call
 * waits, and transactions asked for in the same turn of the event loop share one commit.
 */
import { EventEmitter } from 'node:events';
import BetterSqlite3 from 'better-sqlite3';
import { StorageFault, storageFaultOf } from '../storage/faults.js';
import { runBatch, type Database, type SqlDriver, type TransactionOptions } from './driver.js';
import type { Row } from './types.js';

/**
 * What each transaction of a group that SQLite refused as a whole is rejected with: a storage
 * fault (../storage/faults.ts: answered 503 with its code) around the error that ended it, each
 * its own, or that error itself when it is no storage fault (a bug: a 500 that says so).
 */
function refusalOf(cause: unknown): unknown {
  const kind = storageFaultOf(cause);
  return kind ? new StorageFault(kind, cause) : cause;
}

interface Waiting {
  work: (tx: SqlDriver) => Promise<unknown>;
  durable: boolean;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** One group commit: the driver its work runs on, and the error after which SQLite no longer held its transaction. */
interface Group {
  tx: SqlDriver;
  lost?: { cause: unknown };
  /** Set when the group is settled: a call after that belongs to no transaction. */
  over: boolean;
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

  // SQLite may end a transaction by itself. On SQLITE_FULL, SQLITE_IOERR*, SQLITE_BUSY (or
  // SQLITE_NOMEM) it undoes the failing statement if it can, else the whole transaction: a
  // statement with no journal of its own, a write that failed while the pager spilled its cache
  // to the WAL or its savepoint journal to TMPDIR (seen when the disk fills). The group's
  // savepoints go with it: ROLLBACK TO and COMMIT would then fail with errors that hide the cause
  // (a 500 instead of a 503), and the next work's SAVEPOINT would open a transaction of its own,
  // outside the group, committed on its own. So every step of a group first checks that its
  // transaction is still there, and once SQLite has ended it nothing more of the group runs.

  /** Runs one statement of `group`'s transaction, noting when SQLite has rolled the whole transaction back. */
  function step<T>(group: Group, statement: () => T): T {
    if (group.over) throw new Error('a transaction’s work ran after its transaction ended');
    if (!group.lost && !db.inTransaction) group.lost = { cause: new Error('the transaction ended before its work did') };
    if (group.lost) throw refusalOf(group.lost.cause);
    try {
      return statement();
    } catch (err) {
      if (!db.inTransaction) group.lost = { cause: err };
      throw err;
    }
  }

  /** Runs work inside the group's transaction; when it throws, only its own writes are undone. */
  async function savepoint<T>(group: Group, work: (tx: SqlDriver) => Promise<T>): Promise<T> {
    const name = `sp${++savepoints}`;
    step(group, () => db.exec(`SAVEPOINT ${name}`));
    let result: T;
    try {
      result = await work(group.tx);
    } catch (err) {
      // Gone with the whole transaction: nothing is left to undo, and its cause is the answer.
      if (group.lost) throw refusalOf(group.lost.cause);
      step(group, () => db.exec(`ROLLBACK TO ${name}`));
      step(group, () => db.exec(`RELEASE ${name}`));
      throw err;
    }
    // Also when the work caught the error that ended the transaction: its writes are gone, so it failed.
    step(group, () => db.exec(`RELEASE ${name}`));
    return result;
  }

  function openGroup(): Group {
    const group: Group = {
      over: false,
      // The driver handed to a transaction's work: runs at once, on the group's transaction.
      tx: {
        all: async (sql, params) => step(group, () => allNow(sql, params)),
        run: async (sql, params) => step(group, () => runNow(sql, params)),
        batch: (statements) => savepoint(group, (tx) => runBatch(tx, statements)),
        transaction: (work) => savepoint(group, work),
      },
    };
    return group;
  }

  // Group commit: one BEGIN ... COMMIT (one WAL fsync) for every transaction that arrived in the
  // same turn, each in its own savepoint so one failing undoes only itself. better-sqlite3 blocks
  // while it syncs, so under load the next group gathers by itself.
  let waiting: Waiting[] = [];
  async function commitGroup(): Promise<void> {
    while (held !== undefined) await held;
    const members = waiting;
    waiting = [];
    const release = hold();
    const group = openGroup();
    const outcomes: Outcome[] = [];
    /** Set when the whole group is refused: nothing of it was committed. */
    let refused: { cause: unknown } | undefined;
    // A group syncs unless every transaction in it may skip that (TransactionOptions.durable). In WAL,
    // NORMAL skips the fsync at COMMIT; the next FULL commit's fsync, or a checkpoint, takes it along.
    const relaxed = members.every((w) => !w.durable);
    if (relaxed) db.pragma('synchronous = NORMAL');
    try {
      db.exec('BEGIN IMMEDIATE');
      // Once SQLite has rolled the transaction back, the rest cannot start: their SAVEPOINT is refused (step).
      for (const { work } of members) {
        try {
          outcomes.push({ ok: true, value: await savepoint(group, work) });
        } catch (err) {
          outcomes.push({ ok: false, err });
        }
      }
      if (group.lost) refused = group.lost;
      else db.exec('COMMIT');
    } catch (err) {
      // BEGIN or COMMIT failed (SQLITE_BUSY, SQLITE_FULL...): nothing of the group is committed.
      refused = { cause: err };
    } finally {
      group.over = true;
      try {
        if (db.inTransaction) db.exec('ROLLBACK');
      } catch {
        // SQLite ends the transaction on ROLLBACK even when it reports an error.
      }
      try {
        if (relaxed) db.pragma('synchronous = FULL');
      } finally {
        release();
      }
    }
    members.forEach((w, i) => {
      const outcome = outcomes[i];
      if (refused) w.reject(refusalOf(refused.cause));
      else if (outcome!.ok) w.resolve(outcome!.value);
      else w.reject(outcome!.err);
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
      while (held !== undefined) await held;
      return allNow(sql, params);
    },
    async run(sql, params) {
      while (held !== undefined) await held;
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
      while (held !== undefined || waiting.length > 0) await (held ?? new Promise((resolve) => setImmediate(resolve)));
      db.close();
    },
  };
}
