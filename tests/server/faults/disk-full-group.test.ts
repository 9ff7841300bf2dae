/**
 * Notes whose rows share one SQLite commit (the driver's group commit: transactions asked for in
 * one turn of the event loop) while the data folder's disk, a real small file system, fills
 * between their audio and their rows. SQLite writes inside a transaction before its COMMIT when
 * its page cache spills into the WAL (a small cache here, so a note's few pages do), as it spills
 * its savepoint journal into TMPDIR: on a full disk the write fails and SQLite rolls the whole
 * transaction back by itself. Each note is then refused 503 storage_full, none kept, and taken
 * with its audio once space is back. They once were 500s ("cannot commit - no
 * transaction is active"), and the work after the failing one ran outside the transaction.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../server/app.js';
import { testLog } from '../support/app.js';
import { loadConfig } from '../../../server/config/index.js';
import type { Database } from '../../../server/db/driver.js';
import { SQLITE_FILE } from '../../../server/db/index.js';
import { createRepository } from '../../../server/db/repository.js';
import { openSqlite } from '../../../server/db/sqlite-driver.js';
import type { BlobStore } from '../../../server/storage/blob-store.js';
import { LOCAL_BLOBS_DIR, openBlobStore } from '../../../server/storage/index.js';
import { makeSpeech } from '../support/audio.js';
import { mountSmallDisk, type SmallDisk } from '../support/small-disk.js';
import { makeLink, putNote, sha256Hex } from '../support/uploads.js';

const NOTES = 6;

/** The database, noting the turn of the event loop in which each transaction was asked for. */
function noteTurns(db: Database) {
  const turns: number[] = [];
  let turn = 0;
  let ending = false;
  const asked = () => {
    turns.push(turn);
    if (ending) return;
    ending = true;
    setImmediate(() => {
      ending = false;
      turn++;
    });
  };
  const watched: Database = {
    ...db,
    transaction: (work, options) => (asked(), db.transaction(work, options)),
    batch: (statements) => (asked(), db.batch(statements)),
  };
  return { db: watched, turns };
}

/** The blob store, whose puts can be held once stored until `count` of them are, then let go together. */
function gatedStore(store: BlobStore) {
  let gate: { count: number; stored: number; all: () => void; open: Promise<void> } | undefined;
  let allStored!: Promise<void>;
  const gated: BlobStore = {
    ...store,
    async put(key, body, options) {
      const result = await store.put(key, body, options);
      const held = gate;
      if (held && ++held.stored === held.count) held.all();
      if (held) await held.open;
      return result;
    },
  };
  return {
    store: gated,
    /** The next `count` puts wait; resolves once all are stored, with the function that lets them go. */
    hold(count: number): Promise<() => void> {
      let letGo!: () => void;
      const open = new Promise<void>((resolve) => (letGo = resolve));
      allStored = new Promise<void>((resolve) => (gate = { count, stored: 0, all: resolve, open }));
      return allStored.then(() => () => {
        gate = undefined;
        letGo();
      });
    },
  };
}

describe('notes sharing one SQLite commit while the disk fills', () => {
  let disk: SmallDisk;
  let speechDir: string;
  let speech: Buffer;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let raw: Database;
  let turns: number[];
  let gate: ReturnType<typeof gatedStore>;

  beforeAll(async () => {
    speechDir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-audio-'));
    await makeSpeech(speechDir);
    speech = await readFile(path.join(speechDir, 'speech.webm'));
    disk = await mountSmallDisk(16);
    const config = loadConfig({
      DATA_DIR: disk.dir,
      DIST_DIR: path.join(disk.dir, 'no-dist'),
      LOG_LEVEL: 'error',
      CONVERT_WORKER: 'off',
      READY_MIN_FREE_MB: '0',
    });
    raw = openSqlite(path.join(disk.dir, SQLITE_FILE));
    const watched = noteTurns(raw);
    turns = watched.turns;
    const repo = createRepository(watched.db);
    await repo.migrate();
    gate = gatedStore(openBlobStore(config));
    app = await buildApp(config, { repo, blobs: gate.store, logStream: testLog });
  });
  afterAll(async () => {
    await app?.close();
    await disk?.remove();
    await rm(speechDir, { recursive: true, force: true });
  });

  it('should refuse each with 503 storage_full and keep none, then take each with its audio once space is back', async () => {
    const token = await makeLink(app.repo);
    // A first note does what a server does once in a while (the address counts' pruning), so the others' only writes are their own.
    expect((await putNote(app, { token, body: speech })).statusCode).toBe(201);
    // A page cache of a few pages: a note's transaction writes into the WAL before its COMMIT.
    await raw.run('PRAGMA cache_size = 2');

    const ids = Array.from({ length: NOTES }, () => randomUUID());
    const held = gate.hold(NOTES);
    const answers = Promise.all(ids.map((noteId) => putNote(app, { token, noteId, body: speech })));
    const letGo = await held;
    await disk.fill();
    turns.length = 0;
    letGo();
    const refused = await answers;

    // One turn: one group, so one BEGIN ... COMMIT held all of them.
    expect(turns).toHaveLength(NOTES);
    expect(new Set(turns).size).toBe(1);
    for (const res of refused) {
      expect({ status: res.statusCode, retryAfter: res.headers['retry-after'], error: res.json().error }).toEqual({
        status: 503,
        retryAfter: '60',
        error: 'storage_full',
      });
    }
    for (const noteId of ids) expect(await app.repo.notes.find(noteId)).toBeUndefined();

    await disk.free();
    for (const noteId of ids) {
      const taken = await putNote(app, { token, noteId, body: speech });
      expect(taken.statusCode, taken.body).toBe(201);
      const note = await app.repo.notes.find(noteId);
      expect(note?.status).toBe('received');
      expect(sha256Hex(await readFile(path.join(disk.dir, LOCAL_BLOBS_DIR, note!.originalKey)))).toBe(sha256Hex(speech));
    }
  });
});
