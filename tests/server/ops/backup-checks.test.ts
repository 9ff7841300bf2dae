/**
 * What a backup of a deployment beyond DATA_DIR checks, on SQLite + S3 (the PostgreSQL + S3 drill
 * is ./backup-postgres-s3.test.ts): its objects (the notes' audio and the races' pictures) copied to
 * another bucket, a backup whose copy is damaged refused with nothing left behind, and a store
 * lacking an object never a finished backup.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStorageConfig } from '../../../server/config/index.js';
import { openBlobStore } from '../../../server/storage/index.js';
import { anyBlob } from '../../../server/storage/listing.js';
import { convertedKey, raceImageKey } from '../../../server/storage/keys.js';
import { runAdmin } from '../support/cli.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { pngPicture } from '../support/pictures.js';
import { startS3, type TestS3 } from '../support/s3.js';
import { fakeWebm, makeLink, putNote, sha256Hex } from '../support/uploads.js';

let dir: string;
let s3: TestS3;
let t: TestApp;
const noteIds = [randomUUID(), randomUUID(), randomUUID()];
/** The home page's picture of a race (add-race --image): in the same bucket as the notes' audio. */
const picture = pngPicture(64, 40);
const pictureKey = raceImageKey('lakefront-2099', sha256Hex(picture));

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-backup-checks-'));
  s3 = await startS3(['live', 'backup-objects', 'restored', 'restored-again']);
  // No SESSION_SECRET: the one made in DATA_DIR must come along.
  t = await startTestApp('sqlite', { ...s3.env, S3_BUCKET: 'live' });
  const token = await makeLink(t.app.repo);
  for (const noteId of noteIds) expect((await putNote(t.app, { token, noteId, body: fakeWebm(3000) })).statusCode).toBe(201);
  const stored = await t.app.blobs.put(convertedKey(noteIds[0]!), Readable.from([Buffer.from('m4a bytes')]), { maxBytes: 1e6 });
  expect(await t.app.repo.jobs.markConverted(noteIds[0]!, convertedKey(noteIds[0]!), 4200, stored)).toBe(true);
  await t.app.blobs.put(pictureKey, Readable.from([picture]), { maxBytes: 1e6 });
  const image = { key: pictureKey, type: 'image/png' };
  expect(
    await t.app.repo.races.add({
      id: 'lakefront-2099',
      name: 'Lakefront Marathon',
      date: '2099-05-03',
      start: '07:30',
      timezone: 'America/Chicago',
      units: ['mi'],
      image,
    }),
  ).toBe(true);
});
afterAll(async () => {
  await t?.close();
  await s3?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The environment of a new deployment: its own empty DATA_DIR, and `bucket`. */
const newDeployment = (bucket: string) => ({ ...t.backend.env, DATA_DIR: path.join(dir, `data-${bucket}`), S3_BUCKET: bucket });

describe('backup and restore of SQLite + S3', () => {
  const backupDir = () => path.join(dir, 'backup');

  it('should put the objects in another bucket when asked, and restore them into a new DATA_DIR and bucket', async () => {
    const made = await runAdmin(t.backend.env, 'backup', '--to', backupDir(), '--objects-bucket', 'backup-objects');
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    // Three originals, one conversion, and the race's picture.
    expect(JSON.parse(made.stdout)).toMatchObject({ format: 2, database: 'sqlite', notes: 3, objects: 5, objectsBucket: 'backup-objects' });
    expect((await readdir(backupDir())).sort()).toEqual(['milenotes-backup.json', 'milenotes.sqlite', 'objects.jsonl', 'session-secret']);

    const into = newDeployment('restored');
    const restored = await runAdmin(into, 'restore', '--from', backupDir());
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    const verified = await runAdmin(into, 'verify-storage');
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ healthy: true, notes: 3, objects: 4, orphanCount: 0 });
    expect(await buffer(await openBlobStore(loadStorageConfig(into)).get(pictureKey))).toEqual(picture);
    // Sign-ins and signed audio links made with the old secret still hold.
    expect(await readFile(path.join(into.DATA_DIR, 'session-secret'))).toEqual(await readFile(path.join(t.backend.env.DATA_DIR!, 'session-secret')));
  });

  it('should refuse a backup whose copy of an object is damaged, and leave DATA_DIR and the bucket empty', async () => {
    const copies = openBlobStore(loadStorageConfig({ ...t.backend.env, S3_BUCKET: 'backup-objects' }));
    const original = (await t.app.repo.notes.find(noteIds[1]!))!.originalKey;
    // As long as it was, other bytes: only the digest tells.
    await copies.put(original, Readable.from([fakeWebm(3000).fill(1, 100)]), { maxBytes: 1e6 });
    const into = newDeployment('restored-again');
    const refused = await runAdmin(into, 'restore', '--from', backupDir());
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`The backup's copy of ${original} is not the object objects.jsonl records`);
    expect(await anyBlob(openBlobStore(loadStorageConfig(into)))).toBeUndefined();
    expect(await readdir(into.DATA_DIR).catch(() => [])).toEqual([]);
  });

  it('should not finish a backup of a store that lacks a race’s picture, and say to give the race its picture again', async () => {
    await t.app.blobs.delete(pictureKey);
    try {
      const made = await runAdmin(t.backend.env, 'backup', '--to', path.join(dir, 'no-picture'));
      expect(made.code).toBe(1);
      expect(made.stderr).toContain(`first: ${pictureKey}, missing, of race lakefront-2099`);
      expect(made.stderr).toContain('edit-race --id lakefront-2099 --image FILE');
    } finally {
      await t.app.blobs.put(pictureKey, Readable.from([picture]), { maxBytes: 1e6 });
    }
  });

  it('should not finish a backup of a store that lacks an object a row names, and say to run verify-storage', async () => {
    const original = (await t.app.repo.notes.find(noteIds[2]!))!.originalKey;
    await t.app.blobs.delete(original);
    const unfinished = path.join(dir, 'unfinished');
    const made = await runAdmin(t.backend.env, 'backup', '--to', unfinished);
    expect(made.code).toBe(1);
    expect(made.stderr).toContain(`first: ${original}, missing, of note ${noteIds[2]}`);
    expect(made.stderr).toContain('verify-storage');
    expect(await readdir(unfinished)).not.toContain('milenotes-backup.json');
    const restored = await runAdmin(newDeployment('restored-again'), 'restore', '--from', unfinished);
    expect(restored.code).toBe(2);
    expect(restored.stderr).toMatch(/is not a finished MileNotes backup/);
  });
});
