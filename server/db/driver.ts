/**
 * The SQL connection every store is written against, the same over SQLite and PostgreSQL.
 * SQL uses `?` placeholders (our SQL has no `?` inside string literals); the PostgreSQL driver
 * numbers them. Stores never see which database is behind it.
 */
import type { Row } from './types.js';

export type Statement = readonly [sql: string, params: unknown[]];

export interface TransactionOptions {
  /**
   * false: the commit returns before it is on the disk. It survives the process dying, never a
   * half of it is seen, and a durable commit after it makes it durable too; only the machine
   * losing power (or its kernel) in the next moment can take it back. For writes the client would
   * send again or that the next write recomputes (a runner's positions), so that they do not queue
   * on the disk in front of a note. Default true. Nested transactions take their outer one's.
   */
  durable?: boolean;
  /**
   * Tables whose writers the transaction waits out before it starts, and holds off until it ends:
   * PostgreSQL takes `LOCK TABLE ... IN SHARE MODE` first (waiting at most 5 s, then failing with
   * nothing done); on SQLite every write transaction already runs alone. For a change that what
   * those writers read must not miss: a race moved while notes are queued by its old start.
   */
  holdsOffWritersOf?: readonly 'notes'[];
}

export interface SqlDriver {
  /** The rows a statement returns (a SELECT, or a write with RETURNING); [] for a plain write. */
  all(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Runs a write; resolves to the number of rows it changed. */
  run(sql: string, params?: unknown[]): Promise<number>;
  /** Runs the statements in one transaction, all or nothing; resolves to each one's rows. */
  batch(statements: readonly Statement[]): Promise<Row[][]>;
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back when it throws.
   * Inside, use only `tx` (the outer driver waits for the transaction: calling it would never
   * return) and await nothing but its calls, since the transaction holds the database meanwhile.
   */
  transaction<T>(work: (tx: SqlDriver) => Promise<T>, options?: TransactionOptions): Promise<T>;
}

/** A database: a driver plus what only the connection's owner may do. */
export interface Database extends SqlDriver {
  readonly kind: 'sqlite' | 'postgres';
  /**
   * A transaction that no other process runs at the same time, for migrations when several
   * servers start at once (SQLite: a write lock from the start; PostgreSQL: an advisory lock).
   */
  exclusive<T>(work: (tx: SqlDriver) => Promise<T>): Promise<T>;
  /**
   * Calls `onSignal` with the payload of every `pg_notify(channel, payload)` a committed statement
   * sends, from any server on this database (SQLite: from this process, the only server). `onGap`
   * is called when signals may have been missed (a lost listening connection came back).
   * Resolves once listening, to a function that stops it.
   */
  listen(channel: string, onSignal: (payload: string) => void, onGap?: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** `batch` in terms of a transaction: one shape for both drivers. */
export async function runBatch(tx: SqlDriver, statements: readonly Statement[]): Promise<Row[][]> {
  const results: Row[][] = [];
  for (const [sql, params] of statements) results.push(await tx.all(sql, params));
  return results;
}
