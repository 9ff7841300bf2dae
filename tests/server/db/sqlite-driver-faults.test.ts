/**
 * The SQLite driver's group commit (transactions asked for in one turn share one BEGIN ... COMMIT,
 * each in its own savepoint) when SQLite refuses a write for lack of room. SQLite may then roll
 * the whole transaction back by itself (SQLITE_FULL while it spills its page cache into the WAL
 * on a real full disk here) or undo only the statement (SQLITE_FULL from its page limit, for a
 * statement with a journal of its own). The first case once answered every
 * transaction with "cannot commit - no transaction is active" (a 500) and ran the work after the
 * failing one outside any transaction, committed on its own.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Database, SqlDriver } from '../../../server/db/driver.js';
import { openSqlite } from '../../../server/db/sqlite-driver.js';
import { storageFaultOf } from '../../../server/storage/faults.js';
import { mountSmallDisk, type SmallDisk } from '../support/small-disk.js';

const insertThing = (tx: SqlDriver, id: string) => tx.run('INSERT INTO things (id) VALUES (?)', [id]);
/** 24 MB in one statement: more than SQLite's page cache (16 MB as built), so it spills into the WAL before any COMMIT. */
const bulkInsert = (tx: SqlDriver, table: string) =>
  tx.run(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 6000) INSERT INTO ${table} (b) SELECT randomblob(4000) FROM n`);
const faultsOf = (results: PromiseSettledResult<unknown>[]) =>
  results.map((r) => (r.status === 'fulfilled' ? 'committed' : (storageFaultOf(r.reason) ?? String(r.reason))));

describe('SQLite transactions sharing a commit when a write finds no room', () => {
  let disk: SmallDisk;
  let db: Database;
  const things = async () => (await db.all('SELECT id FROM things ORDER BY id')).map((r) => r.id);

  beforeEach(async () => {
    disk = await mountSmallDisk(8);
    db = openSqlite(`${disk.dir}/test.sqlite`);
    // bulk has no constraint: its insert keeps no statement journal, so SQLite cannot undo only it.
    await db.batch([
      ['CREATE TABLE things (id TEXT PRIMARY KEY)', []],
      ['CREATE TABLE bulk (b BLOB)', []],
      ['CREATE TABLE checked_bulk (b BLOB NOT NULL)', []],
    ]);
  });
  afterEach(async () => {
    await db?.close();
    await disk?.remove();
  });

  it('should refuse every transaction of the commit with the disk’s error when SQLite rolls it back, keep none, and run none outside a transaction', async () => {
    await disk.fill();
    let afterLoss: unknown;
    const later = vi.fn((tx: SqlDriver) => insertThing(tx, 'c'));
    const results = await Promise.allSettled([
      db.transaction((tx) => insertThing(tx, 'a')),
      db.transaction(async (tx) => {
        await expect(bulkInsert(tx, 'bulk')).rejects.toMatchObject({ code: 'SQLITE_FULL' });
        // Room again at once: a write that ran outside the transaction now would be committed.
        await disk.free();
        // A work that carries on after the error: its next write must not run on its own.
        afterLoss = await insertThing(tx, 'b').catch((err: unknown) => err);
      }),
      db.transaction(later),
    ]);

    expect(faultsOf(results)).toEqual(['disk_full', 'disk_full', 'disk_full']);
    expect(storageFaultOf(afterLoss)).toBe('disk_full');
    expect(later).not.toHaveBeenCalled();
    expect(await things()).toEqual([]);
    // The connection is whole again: the next commit goes through.
    await db.transaction((tx) => insertThing(tx, 'next'));
    expect(await things()).toEqual(['next']);
  });

  it('should refuse only the transaction whose statement SQLite undid, and commit the rest of the commit', async () => {
    // SQLite's own page limit gives the same SQLITE_FULL without a full disk, and a multi-row
    // insert that checks a constraint keeps a statement journal, so only that statement is undone.
    const [pages] = await db.all('PRAGMA page_count');
    await db.run(`PRAGMA max_page_count = ${Number(pages!.page_count) + 50}`);
    const results = await Promise.allSettled([
      db.transaction((tx) => insertThing(tx, 'a')),
      db.transaction(async (tx) => {
        await insertThing(tx, 'b');
        await bulkInsert(tx, 'checked_bulk');
      }),
      db.transaction((tx) => insertThing(tx, 'c')),
    ]);

    expect(faultsOf(results)).toEqual(['committed', 'disk_full', 'committed']);
    expect(await things()).toEqual(['a', 'c']);
  });
});
