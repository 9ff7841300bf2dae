/**
 * What PostgreSQL itself counts, read at a window's edges by the API-server bench: transactions
 * committed (pg_stat_database), WAL written (pg_current_wal_lsn and pg_stat_wal), connections by
 * the application_name each process gives in its URL, and per statement its calls, time and WAL
 * (pg_stat_statements, loaded by the bench's throwaway cluster). Read on a connection of its own;
 * the reading's own few statements are counted too (a handful a window).
 */
import pg from 'pg';

export interface StatementCount {
  query: string;
  calls: number;
  ms: number;
  walBytes: number;
}

export interface PgReading {
  at: number;
  xactCommit: number;
  xactRollback: number;
  /** Bytes of WAL since the cluster began (pg_current_wal_lsn). */
  walLsn: number;
  walRecords: number;
  walFpi: number;
  /** Open connections by application_name. */
  connections: Record<string, number>;
  statements: Map<string, StatementCount>;
}

export interface PgDelta {
  seconds: number;
  commits: number;
  rollbacks: number;
  walBytes: number;
  walRecords: number;
  walFpi: number;
  /** The statements' differences, most time first. */
  statements: StatementCount[];
}

export class PgStats {
  private constructor(private readonly client: pg.Client) {}

  /** Connects and makes sure pg_stat_statements is there (its library must be preloaded). */
  static async open(url: string): Promise<PgStats> {
    const client = new pg.Client({ connectionString: url, application_name: 'bench-readings' });
    await client.connect();
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    return new PgStats(client);
  }

  async read(): Promise<PgReading> {
    const c = this.client;
    // One after another: a pg client runs one query at a time.
    const db = await c.query<{ xact_commit: string; xact_rollback: string }>(
      'SELECT xact_commit, xact_rollback FROM pg_stat_database WHERE datname = current_database()',
    );
    const lsn = await c.query<{ bytes: string }>("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint AS bytes");
    const wal = await c.query<{ wal_records: string; wal_fpi: string }>('SELECT wal_records, wal_fpi FROM pg_stat_wal');
    const conns = await c.query<{ name: string; n: string }>(
      "SELECT coalesce(nullif(application_name, ''), backend_type) AS name, count(*) AS n FROM pg_stat_activity GROUP BY 1",
    );
    const stmts = await c.query<{ queryid: string; query: string; calls: string; ms: number; wal_bytes: string }>(
      'SELECT queryid::text, query, calls, total_exec_time AS ms, wal_bytes FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())',
    );
    return {
      at: Date.now(),
      xactCommit: Number(db.rows[0]!.xact_commit),
      xactRollback: Number(db.rows[0]!.xact_rollback),
      walLsn: Number(lsn.rows[0]!.bytes),
      walRecords: Number(wal.rows[0]!.wal_records),
      walFpi: Number(wal.rows[0]!.wal_fpi),
      connections: Object.fromEntries(conns.rows.map((r) => [r.name, Number(r.n)])),
      statements: new Map(
        stmts.rows.map((r) => [r.queryid, { query: r.query.replace(/\s+/g, ' '), calls: Number(r.calls), ms: Number(r.ms), walBytes: Number(r.wal_bytes) }]),
      ),
    };
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}

export function pgBetween(a: PgReading, b: PgReading): PgDelta {
  const statements: StatementCount[] = [];
  for (const [id, s] of b.statements) {
    const before = a.statements.get(id);
    const calls = s.calls - (before?.calls ?? 0);
    if (calls > 0) statements.push({ query: s.query, calls, ms: s.ms - (before?.ms ?? 0), walBytes: s.walBytes - (before?.walBytes ?? 0) });
  }
  return {
    seconds: (b.at - a.at) / 1000,
    commits: b.xactCommit - a.xactCommit,
    rollbacks: b.xactRollback - a.xactRollback,
    walBytes: b.walLsn - a.walLsn,
    walRecords: b.walRecords - a.walRecords,
    walFpi: b.walFpi - a.walFpi,
    statements: statements.sort((x, y) => y.ms - x.ms),
  };
}
