/**
 * Counts the SQL statements one piece of work sends to the database: a driver in front of the real
 * one that notes each statement against the work that is running (by its async context, so the
 * server's own loops and other requests meanwhile are not counted). A transaction's statements
 * count for the work that opened it, whichever context the driver then runs it in.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Database, SqlDriver } from '../../../server/db/driver.js';

type Tally = string[];

export interface StatementCounter {
  /** The database to build the repository on. */
  db: Database;
  /** Runs `work` and resolves to it and the statements it sent, in order. */
  during<T>(work: () => Promise<T>): Promise<{ result: T; statements: string[] }>;
}

export function countStatements(db: Database): StatementCounter {
  const current = new AsyncLocalStorage<Tally>();
  const counting = (driver: SqlDriver, tally: () => Tally | undefined): SqlDriver => ({
    all: (sql, params) => (tally()?.push(sql), driver.all(sql, params)),
    run: (sql, params) => (tally()?.push(sql), driver.run(sql, params)),
    batch: (statements) => (tally()?.push(...statements.map(([sql]) => sql)), driver.batch(statements)),
    transaction: (work, options) => {
      const opener = tally();
      return driver.transaction((tx) => work(counting(tx, () => opener)), options);
    },
  });
  const fromContext = () => current.getStore();
  const counted: Database = {
    ...counting(db, fromContext),
    kind: db.kind,
    exclusive: (work) => db.exclusive(work),
    listen: (channel, onSignal, onGap) => db.listen(channel, onSignal, onGap),
    close: () => db.close(),
  };
  return {
    db: counted,
    async during(work) {
      const tally: Tally = [];
      // Awaited inside the context: app.inject's answer is a thenable that starts the request when awaited.
      const result = await current.run(tally, async () => await work());
      return { result, statements: tally };
    },
  };
}
