/** Owns the PostgreSQL connection pool (pg): `?` placeholders numbered, transactions on one pooled client. */
import pg from 'pg';
import { StorageFault } from '../storage/faults.js';
import { runBatch, type Database, type SqlDriver, type TransactionOptions } from './driver.js';
import type { Row } from './types.js';

/** `?` -> `$1`, `$2`, ... Our SQL has no `?` inside string literals. */
export function toPg(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** An arbitrary constant that serialises migrations when several servers start at once. */
const MIGRATION_LOCK = 7_031_626;

/** How long a transaction waits for the writers it holds off (TransactionOptions.holdsOffWritersOf): they finish in milliseconds. */
const HOLD_OFF_WAIT = '5s';

type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

/**
 * pg's own words for a connection that is gone or never came (a stopped or restarting server);
 * its SQLSTATE errors (57P01 and the like) say it by their code (../storage/faults.ts).
 */
const LOST_CONNECTION = /Connection terminated|not queryable|timeout exceeded when trying to connect|connection timeout/i;

/**
 * A connection that could not be made or was lost, as a StorageFault; anything else (a
 * constraint, a bug in our SQL) as it was. System errors here come from the socket to PostgreSQL.
 */
function connectionFault(err: unknown): unknown {
  if (err instanceof pg.DatabaseError || !(err instanceof Error)) return err;
  const code = (err as NodeJS.ErrnoException).code;
  const system = typeof code === 'string' && /^E[A-Z]+$/.test(code);
  return system || LOST_CONNECTION.test(err.message) || err instanceof AggregateError ? new StorageFault('database_unavailable', err) : err;
}

/** `work` on the database, its lost connection thrown as a StorageFault. */
async function reaching<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw connectionFault(err);
  }
}

/**
 * Statements PostgreSQL keeps parsed and planned on each connection (pg's named prepared
 * statements), so the hot ones (a sync's read, a batch's writes) skip parsing and planning after
 * their first time on a connection. A statement with parameters is named once this process has
 * sent it NAMED_AFTER times; at most NAMED_KEPT are named, so SQL built with a varying number of
 * placeholders cannot fill a connection's memory, and statements past BOOK_SIZE are not counted.
 * Statements without parameters (BEGIN, COMMIT, SET LOCAL) stay in the simple protocol: one
 * string may hold several.
 */
const NAMED_AFTER = 3;
const NAMED_KEPT = 200;
const BOOK_SIZE = 2_000;

/**
 * What PostgreSQL says when a prepared statement's result changed shape under it (a migration
 * altered a table a `SELECT *` reads): the statement is named afresh, so the next call prepares it again.
 */
const STALE_PLAN = /cached plan must not change result type/;

interface Entry {
  text: string;
  uses: number;
  name?: string;
}

class StatementBook {
  private readonly entries = new Map<string, Entry>();
  private named = 0;
  private issued = 0;

  /** The query pg is given for `sql`: numbered, and named once it is hot. */
  config(sql: string, params: unknown[]): pg.QueryConfig {
    let entry = this.entries.get(sql);
    if (!entry) {
      entry = { text: toPg(sql), uses: 0 };
      if (this.entries.size < BOOK_SIZE) this.entries.set(sql, entry);
    }
    if (params.length === 0) return { text: entry.text, values: params };
    entry.uses++;
    if (!entry.name && entry.uses >= NAMED_AFTER && this.named < NAMED_KEPT && this.entries.get(sql) === entry) {
      this.named++;
      entry.name = this.nextName();
    }
    return { text: entry.text, values: params, ...(entry.name && { name: entry.name }) };
  }

  /** After a stale plan: the statement gets a new name (the old one stays prepared, unused). */
  renamed(sql: string): void {
    const entry = this.entries.get(sql);
    if (entry?.name) entry.name = this.nextName();
  }

  private nextName(): string {
    return `mn${++this.issued}`;
  }
}

const book = new StatementBook();

/**
 * `sql` on `q`. A stale prepared statement is named afresh; outside a transaction (`q` the pool)
 * the call is made again at once, inside one the error stands (the transaction is aborted anyway).
 */
async function query(q: Queryable, sql: string, params: unknown[], retry: boolean): Promise<pg.QueryResult> {
  return reaching(async () => {
    try {
      return await q.query(book.config(sql, params));
    } catch (err) {
      if (!(err instanceof pg.DatabaseError && STALE_PLAN.test(err.message))) throw err;
      book.renamed(sql);
      if (!retry) throw err;
      return q.query(book.config(sql, params));
    }
  });
}

const all = async (q: Queryable, sql: string, params: unknown[] = [], retry = false) => (await query(q, sql, params, retry)).rows as Row[];
const run = async (q: Queryable, sql: string, params: unknown[] = [], retry = false) => (await query(q, sql, params, retry)).rowCount ?? 0;

/** The driver handed to a transaction's work: statements on its client; nested transactions are savepoints. */
function clientDriver(client: pg.PoolClient): SqlDriver {
  let savepoints = 0;
  const tx: SqlDriver = {
    all: (sql, params) => all(client, sql, params),
    run: (sql, params) => run(client, sql, params),
    batch: (statements) => tx.transaction((inner) => runBatch(inner, statements)),
    async transaction(work) {
      const name = `sp${++savepoints}`;
      await client.query(`SAVEPOINT ${name}`);
      try {
        const result = await work(tx);
        await client.query(`RELEASE SAVEPOINT ${name}`);
        return result;
      } catch (err) {
        await client.query(`ROLLBACK TO SAVEPOINT ${name}`);
        throw err;
      }
    },
  };
  return tx;
}

const RELISTEN_DELAY_MS = 1_000;

/**
 * LISTEN on a connection of its own (a pooled one would go back to the pool and stop hearing).
 * A lost connection is opened again until it works; `onGap` then tells the listener it may have
 * missed signals meanwhile.
 */
async function listenOn(connectionString: string, channel: string, onSignal: (payload: string) => void, onGap?: () => void) {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString });
    c.on('notification', (msg) => {
      if (msg.channel === channel) onSignal(msg.payload ?? '');
    });
    c.on('error', () => lost(c));
    c.on('end', () => lost(c));
    await c.connect();
    await c.query(`LISTEN ${channel}`);
    client = c;
  };
  const lost = (c: pg.Client) => {
    if (stopped || client !== c) return;
    client = undefined;
    c.end().catch(() => {});
    const again = () => {
      retry = setTimeout(() => {
        if (stopped) return;
        connect().then(() => onGap?.(), again);
      }, RELISTEN_DELAY_MS);
    };
    again();
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}

export function openPostgres(connectionString: string): Database {
  const pool = new pg.Pool({ connectionString, max: 10 });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});

  async function transaction<T>(work: (tx: SqlDriver) => Promise<T>, options?: TransactionOptions): Promise<T> {
    const client = await reaching(() => pool.connect());
    let lost: StorageFault | undefined;
    try {
      // synchronous_commit off: COMMIT does not wait for the WAL flush (the WAL writer's next round).
      await reaching(() => client.query(options?.durable === false ? 'BEGIN; SET LOCAL synchronous_commit = off' : 'BEGIN'));
      const held = options?.holdsOffWritersOf ?? [];
      if (held.length > 0) await reaching(() => client.query(`SET LOCAL lock_timeout = '${HOLD_OFF_WAIT}'; LOCK TABLE ${held.join(', ')} IN SHARE MODE`));
      const result = await work(clientDriver(client));
      await reaching(() => client.query('COMMIT'));
      return result;
    } catch (err) {
      if (err instanceof StorageFault) lost = err;
      else await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      // A connection that was lost is closed, not handed to the next caller.
      client.release(lost);
    }
  }

  return {
    kind: 'postgres',
    all: (sql, params) => all(pool, sql, params, true),
    run: (sql, params) => run(pool, sql, params, true),
    batch: (statements) => transaction((tx) => runBatch(tx, statements)),
    transaction,
    exclusive: (work) =>
      transaction(async (tx) => {
        await tx.all('SELECT pg_advisory_xact_lock(?)', [MIGRATION_LOCK]);
        return work(tx);
      }),
    listen: (channel, onSignal, onGap) => listenOn(connectionString, channel, onSignal, onGap),
    close: () => pool.end(),
  };
}
