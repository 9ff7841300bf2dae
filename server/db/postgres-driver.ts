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

const all = (q: Queryable, sql: string, params: unknown[] = []) => reaching(async () => (await q.query(toPg(sql), params)).rows as Row[]);
const run = (q: Queryable, sql: string, params: unknown[] = []) => reaching(async () => (await q.query(toPg(sql), params)).rowCount ?? 0);

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
    all: (sql, params) => all(pool, sql, params),
    run: (sql, params) => run(pool, sql, params),
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
