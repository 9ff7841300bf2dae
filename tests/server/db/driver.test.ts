import { afterEach, describe, expect, it } from 'vitest';
import type { Database, SqlDriver, Statement } from '../../../server/db/driver.js';
import { openDatabase } from '../../../server/db/index.js';
import { applyMigrations, PLACEHOLDER } from '../../../server/db/migrate.js';
import { BACKENDS, createBackend, type TestBackend } from '../support/backends.js';

const THINGS = 'CREATE TABLE things (id TEXT PRIMARY KEY, n INTEGER NOT NULL)';
const MORE = 'CREATE TABLE more_things (id TEXT PRIMARY KEY); CREATE INDEX things_by_n ON things (n)';
const insertThing = (id: string, n: number): Statement => ['INSERT INTO things (id, n) VALUES (?, ?)', [id, n]];

describe.each(BACKENDS)('the SQL driver on %s', (kind) => {
  let backend: TestBackend;
  const opened: Database[] = [];
  const open = async (migrate = true) => {
    backend ??= await createBackend(kind);
    const db = openDatabase(backend.config);
    opened.push(db);
    if (migrate) await db.exclusive((tx) => applyMigrations(tx, [THINGS]));
    return db;
  };
  const ids = async (db: Database) => (await db.all('SELECT id FROM things ORDER BY id')).map((r) => r.id);

  afterEach(async () => {
    for (const db of opened.splice(0)) await db.close();
    await backend?.cleanup();
    backend = undefined!;
  });

  it('should bind ? placeholders in order and return rows from SELECT and RETURNING', async () => {
    const db = await open();
    expect(await db.run(...insertThing('a', 1))).toBe(1);
    expect(await db.all('INSERT INTO things (id, n) VALUES (?, ?) RETURNING id, n', ['b', 2])).toEqual([{ id: 'b', n: 2 }]);
    expect(await db.all('SELECT id FROM things WHERE n = ? AND id = ?', [2, 'b'])).toEqual([{ id: 'b' }]);
    expect(await db.run('UPDATE things SET n = n + ? WHERE n >= ?', [10, 1])).toBe(2);
    expect(await db.all('INSERT INTO things (id, n) VALUES (?, ?)', ['c', 3])).toEqual([]);
  });

  it('should commit a transaction that resolves and undo all of one that throws', async () => {
    const db = await open();
    await expect(
      db.transaction(async (tx) => {
        await tx.run(...insertThing('a', 1));
        return tx.run(...insertThing('b', 2));
      }),
    ).resolves.toBe(1);
    await expect(
      db.transaction(async (tx) => {
        await tx.run(...insertThing('c', 3));
        await tx.run(...insertThing('a', 4));
      }),
    ).rejects.toThrow();
    expect(await ids(db)).toEqual(['a', 'b']);
  });

  it('should apply a batch all or nothing and return each statement’s rows', async () => {
    const db = await open();
    await expect(db.batch([insertThing('a', 1), insertThing('a', 2)])).rejects.toThrow();
    expect(await ids(db)).toEqual([]);
    const results = await db.batch([insertThing('a', 1), ['SELECT id, n FROM things', []], ['DELETE FROM things WHERE id = ? RETURNING id', ['a']]]);
    expect(results).toEqual([[], [{ id: 'a', n: 1 }], [{ id: 'a' }]]);
  });

  it('should undo only a nested batch that fails, keeping the rest of its transaction', async () => {
    const db = await open();
    await db.transaction(async (tx) => {
      await tx.run(...insertThing('a', 1));
      await expect(tx.batch([insertThing('b', 2), insertThing('a', 3)])).rejects.toThrow();
      await tx.run(...insertThing('c', 3));
    });
    expect(await ids(db)).toEqual(['a', 'c']);
  });

  it('should keep a write made outside an open transaction when that transaction rolls back', async () => {
    const db = await open();
    let outside: Promise<number> | undefined;
    await expect(
      db.transaction(async (tx) => {
        await tx.run(...insertThing('a', 1));
        // Another request writes while this transaction is open...
        outside = db.run(...insertThing('b', 2));
        await tx.run(...insertThing('a', 1));
      }),
    ).rejects.toThrow();
    // ...and its write must not have been swept into the rolled-back transaction.
    await expect(outside).resolves.toBe(1);
    expect(await ids(db)).toEqual(['b']);
  });

  it('should keep a plain write that waited for one transaction out of the next transaction', async () => {
    const db = await open();
    let next: Promise<void> | undefined;
    let outside: Promise<number> | undefined;
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    await db.transaction(async (tx) => {
      await tx.run(...insertThing('a', 1));
      // A transaction queues and starts waiting for this one (against the driver's advice, this
      // one spans a turn, so the wait is real)...
      next = db.transaction(async (tx2) => {
        await tx2.run(...insertThing('c', 3));
        throw new Error('undo c');
      });
      await turn();
      // ...then a plain write queues behind both.
      outside = db.run(...insertThing('b', 2));
      await turn();
    });
    await expect(next).rejects.toThrow('undo c');
    // The plain write was told it succeeded: it must not have run inside the rolled-back transaction.
    await expect(outside).resolves.toBe(1);
    expect(await ids(db)).toEqual(['a', 'b']);
  });

  it('should settle transactions started together on their own: one failing undoes only itself', async () => {
    const db = await open();
    await db.run(...insertThing('taken', 0));
    const results = await Promise.allSettled(
      ['a', 'b', 'taken', 'c'].map((id, n) =>
        db.transaction(async (tx) => {
          await tx.run(...insertThing(`${id}-first`, n));
          return tx.run(...insertThing(id, n));
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(await ids(db)).toEqual(['a', 'a-first', 'b', 'b-first', 'c', 'c-first', 'taken']);
  });

  it('should commit without waiting for the disk only when every transaction in the commit agrees to', async () => {
    const db = await open();
    // What the commit will wait for, read inside the transaction: SQLite's synchronous level
    // (2 FULL, 1 NORMAL: in WAL, no fsync at COMMIT), PostgreSQL's synchronous_commit.
    const setting = async (tx: SqlDriver) => {
      const [row] = kind === 'sqlite' ? await tx.all('PRAGMA synchronous') : await tx.all('SHOW synchronous_commit');
      return String(Object.values(row!)[0]);
    };
    const [synced, unsynced] = kind === 'sqlite' ? ['2', '1'] : ['on', 'off'];
    const relaxed = { durable: false };
    expect(await db.transaction(async (tx) => (await tx.run(...insertThing('a', 1)), setting(tx)), relaxed)).toBe(unsynced);
    // Restored for the next one, and a nested transaction does not change it.
    expect(await db.transaction(async (tx) => tx.transaction(setting))).toBe(synced);
    // Started together: SQLite commits them as one, so the durable one makes both synced.
    const together = await Promise.all([db.transaction(setting, relaxed), db.transaction(setting), db.transaction(setting, relaxed)]);
    expect(together).toEqual(kind === 'sqlite' ? [synced, synced, synced] : [unsynced, synced, unsynced]);
    expect(await Promise.all([db.transaction(setting, relaxed), db.transaction(setting, relaxed)])).toEqual([unsynced, unsynced]);
    expect(await ids(db)).toEqual(['a']);
  });

  it('should keep answering a statement sent often after a migration changed the shape of the table it reads', async () => {
    const db = await open();
    await db.run(...insertThing('a', 1));
    const read = () => db.all('SELECT * FROM things WHERE n >= ?', [0]);
    for (let i = 0; i < 5; i++) expect(await read()).toEqual([{ id: 'a', n: 1 }]);
    await db.run('ALTER TABLE things ADD COLUMN extra INTEGER NOT NULL DEFAULT 7');
    expect(await read()).toEqual([{ id: 'a', n: 1, extra: 7 }]);
    expect(await read()).toEqual([{ id: 'a', n: 1, extra: 7 }]);
  });

  it('should apply each migration once, in order, and only the ones appended since', async () => {
    const db = await open(false);
    expect(await db.exclusive((tx) => applyMigrations(tx, [THINGS]))).toEqual([1]);
    expect(await db.exclusive((tx) => applyMigrations(tx, [THINGS]))).toEqual([]);
    expect(await db.exclusive((tx) => applyMigrations(tx, [THINGS, MORE]))).toEqual([2]);
    const versions = await db.all('SELECT version FROM schema_migrations ORDER BY version');
    expect(versions.map((r) => Number(r.version))).toEqual([1, 2]);
    expect(await db.all('SELECT id FROM more_things')).toEqual([]);
  });

  it('should apply a migration recorded below the highest version when a database lacks it', async () => {
    const db = await open(false);
    await db.exclusive((tx) => applyMigrations(tx, [THINGS]));
    // A database that ran version 3 while version 2 was still on another branch.
    await db.run('INSERT INTO schema_migrations (version) VALUES (?)', [3]);
    expect(await db.exclusive((tx) => applyMigrations(tx, [THINGS, MORE, 'CREATE TABLE third_things (id TEXT)']))).toEqual([2]);
    await expect(db.all('SELECT id FROM more_things')).resolves.toEqual([]);
  });

  it('should not record a placeholder, so the migration merged into its place later is still applied', async () => {
    const db = await open(false);
    expect(await db.exclusive((tx) => applyMigrations(tx, [THINGS, PLACEHOLDER, 'CREATE TABLE third_things (id TEXT)']))).toEqual([1, 3]);
    const whole = [THINGS, MORE, 'CREATE TABLE third_things (id TEXT)'];
    expect(await db.exclusive((tx) => applyMigrations(tx, whole))).toEqual([2]);
    await expect(db.all('SELECT id FROM more_things')).resolves.toEqual([]);
  });

  it('should let servers starting together migrate once between them', async () => {
    const first = await open(false);
    const others = await Promise.all([open(false), open(false), open(false)]);
    const applied = await Promise.all([first, ...others].map((db) => db.exclusive((tx) => applyMigrations(tx, [THINGS, MORE]))));
    expect(applied.flat().sort()).toEqual([1, 2]);
  });

  it('should roll back a migration that fails part-way, recording nothing', async () => {
    const db = await open(false);
    await expect(db.exclusive((tx) => applyMigrations(tx, [THINGS, 'CREATE TABLE half (id TEXT); CREATE TABLE things (id TEXT)']))).rejects.toThrow();
    await expect(db.all('SELECT id FROM half')).rejects.toThrow();
    expect(await db.exclusive((tx) => applyMigrations(tx, [THINGS]))).toEqual([1]);
  });
});

describe("the PostgreSQL driver's prepared statements", () => {
  let backend: TestBackend | undefined;
  let db: Database | undefined;

  afterEach(async () => {
    await db?.close();
    await backend?.cleanup();
  });

  const prepared = async (tx: SqlDriver) => (await tx.all('SELECT statement FROM pg_prepared_statements')).map((r) => String(r.statement));

  it('should keep a statement sent often parsed on its connection, and no more than a bounded number of them', async () => {
    backend = await createBackend('postgres');
    db = openDatabase(backend.config);
    await db.exclusive((tx) => applyMigrations(tx, [THINGS]));
    await db.run(...insertThing('a', 1));
    await db.transaction(async (tx) => {
      for (let i = 0; i < 3; i++) expect(await tx.all('SELECT n FROM things WHERE id = ?', ['a'])).toEqual([{ n: 1 }]);
      expect(await prepared(tx)).toContain('SELECT n FROM things WHERE id = $1');
      // SQL built with a varying number of placeholders: each shape sent often, more shapes than are kept.
      for (let shape = 1; shape <= 250; shape++) {
        const sql = `SELECT count(*)::int AS c FROM things WHERE id IN (${Array(shape).fill('?').join(', ')})`;
        for (let i = 0; i < 3; i++) expect(await tx.all(sql, Array(shape).fill('a'))).toEqual([{ c: 1 }]);
      }
      expect((await prepared(tx)).length).toBeLessThanOrEqual(200);
    });
  });
});
