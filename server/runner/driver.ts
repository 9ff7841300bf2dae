/** The few SQL calls the runner store needs, over either database: one SQLite connection or the PostgreSQL pool. */
import type Database from 'better-sqlite3';
import type pg from 'pg';

export type Row = Record<string, unknown>;

export interface SqlDriver {
  all(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Rows changed. */
  run(sql: string, params?: unknown[]): Promise<number>;
  /** Runs the statements in one transaction; all or nothing. Returns the rows each one returned (RETURNING), if any. */
  batch(statements: ReadonlyArray<readonly [string, unknown[]]>): Promise<Row[][]>;
}

export function sqliteDriver(db: Database.Database): SqlDriver {
  // better-sqlite3 is synchronous, so a transaction here cannot interleave with other requests.
  const batch = db.transaction((statements: ReadonlyArray<readonly [string, unknown[]]>) =>
    statements.map(([sql, params]) => {
      const statement = db.prepare(sql);
      return statement.reader ? (statement.all(...params) as Row[]) : (statement.run(...params), []);
    }),
  );
  return {
    async all(sql, params = []) {
      const statement = db.prepare(sql);
      return (statement.reader ? statement.all(...params) : (statement.run(...params), [])) as Row[];
    },
    async run(sql, params = []) {
      return db.prepare(sql).run(...params).changes;
    },
    async batch(statements) {
      return batch.immediate(statements);
    },
  };
}

/** `?` -> `$1`, `$2`, ... as the main repository does; our SQL has no `?` inside literals. */
const toPg = (sql: string) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

export function postgresDriver(pool: pg.Pool): SqlDriver {
  return {
    async all(sql, params = []) {
      return (await pool.query(toPg(sql), params)).rows as Row[];
    },
    async run(sql, params = []) {
      return (await pool.query(toPg(sql), params)).rowCount ?? 0;
    },
    async batch(statements) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const results: Row[][] = [];
        for (const [sql, params] of statements) results.push((await client.query(toPg(sql), params)).rows as Row[]);
        await client.query('COMMIT');
        return results;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
  };
}
