import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../server/config/index.js';
import { openRepository } from '../../../server/db/index.js';
import { openBlobStore } from '../../../server/storage/index.js';
import { decodedSeconds, FORMATS, makeSpeech } from '../support/audio.js';
import { createBackend, type TestBackend } from '../support/backends.js';
import { runAdmin } from '../support/cli.js';
import { uploadStream, uploadTo } from '../support/remote-uploads.js';
import { startServerProcess, stopGracefully, type ServerProcess } from '../../../kit/serverProcess.js';
import { makeLink } from '../support/uploads.js';

let dir: string;
let speech: Buffer;
let speechSeconds: number;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-backup-'));
  ({ seconds: speechSeconds } = await makeSpeech(dir));
  speech = await readFile(path.join(dir, FORMATS['WebM/Opus'].file));
}, 120_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('admin backup and restore (SQLite + disk)', () => {
  let backend: TestBackend;
  const procs: ServerProcess[] = [];
  afterAll(async () => {
    for (const p of procs) await stopGracefully(p);
    await backend?.cleanup();
  });

  it('should copy a serving server during uploads, and restore every note acknowledged before the backup, playable', async () => {
    // Uploads as fast as the machine goes, from one test address to one link: the per-address
    // and per-minute limits (tested elsewhere) would refuse them after 60 or 120, so they are lifted.
    backend = await createBackend('sqlite', {
      CONVERT_WORKER: 'on',
      UPLOADS_PER_ADDRESS: '100000',
      OPEN_UPLOADS_PER_ADDRESS: '100',
      RATE_LIMIT_PER_MINUTE: '100000',
      LINK_MAX_NOTES: '100000',
    });
    const setup = await openRepository(backend.config);
    const token = await makeLink(setup);
    await setup.close();
    const live = await startServerProcess(backend.env, 60_000);
    procs.push(live);

    const uploads = uploadStream(() => live.base, token, speech);
    await expect.poll(() => uploads.acknowledged.size, { timeout: 30_000, interval: 20 }).toBeGreaterThanOrEqual(10);
    const before = new Set(uploads.acknowledged.keys());
    expect(uploads.inFlight()).toBeGreaterThan(0);
    const backupDir = path.join(dir, 'backup');
    const made = await runAdmin(backend.env, 'backup', '--to', backupDir);
    const afterBackup = uploads.acknowledged.size;
    await expect.poll(() => uploads.acknowledged.size, { timeout: 30_000, interval: 20 }).toBeGreaterThan(afterBackup);
    await uploads.stop();
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    expect(JSON.parse(made.stdout).notes).toBeGreaterThanOrEqual(before.size);

    const restoredDir = path.join(dir, 'restored');
    const restoredEnv = { ...backend.env, DATA_DIR: restoredDir };
    const restored = await runAdmin(restoredEnv, 'restore', '--from', backupDir);
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);

    const revived = await startServerProcess(restoredEnv, 60_000);
    procs.push(revived);
    expect((await fetch(`${revived.base}/readyz`)).status).toBe(200);
    const config = loadConfig(restoredEnv);
    const repo = await openRepository(config);
    const blobs = openBlobStore(config);
    try {
      for (const noteId of before) {
        const note = await repo.notes.find(noteId);
        expect(note, `note ${noteId} acknowledged before the backup`).toBeDefined();
        const file = path.join(dir, `${noteId}.webm`);
        await pipeline(await blobs.get(note!.originalKey), createWriteStream(file));
        expect(Math.abs((await decodedSeconds(file)) - speechSeconds)).toBeLessThan(0.3);
      }
      const first = [...before][0]!;
      const again = await uploadTo(revived.base, token, first, speech);
      expect(again.status).toBe(201);
      expect(again.receipt!.id).toBe(first);
    } finally {
      await repo.close();
    }
  }, 240_000);

  it('should refuse to restore into a DATA_DIR that is not empty, and change nothing there', async () => {
    const target = path.join(dir, 'busy');
    await mkdir(target, { recursive: true });
    await writeFile(path.join(target, 'keep.txt'), 'mine');
    const { code, stderr } = await runAdmin({ DATA_DIR: target }, 'restore', '--from', path.join(dir, 'backup'));
    expect(code).toBe(2);
    expect(stderr).toMatch(/is not empty/);
    expect(await readFile(path.join(target, 'keep.txt'), 'utf8')).toBe('mine');
  });

  it('should refuse a file given as the folder to back up into, and leave it as it was', async () => {
    const file = path.join(dir, 'not-a-folder');
    await writeFile(file, 'mine');
    const { code, stderr } = await runAdmin({ DATA_DIR: path.join(dir, 'unused') }, 'backup', '--to', file);
    expect(code).toBe(2);
    expect(stderr).toContain(`${file} is a file, not a folder`);
    expect(await readFile(file, 'utf8')).toBe('mine');
  });

  it('should refuse to restore a backup of SQLite and disk into PostgreSQL or S3, and say how it restores', async () => {
    for (const into of [{ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }, { S3_BUCKET: 'notes' }]) {
      const refused = await runAdmin({ DATA_DIR: path.join(dir, 'x'), ...into }, 'restore', '--from', path.join(dir, 'backup'));
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/is a backup of a SQLite file and audio on disk: restore it with DATABASE_URL and S3_BUCKET unset/);
    }
  });
});
