/**
 * A conversion that meets a full disk (the blob folder on a real small file system, filled) is
 * tried again later and never counts toward giving the note up: more faults than MAX_ATTEMPTS and
 * the note still waits, then it is converted once space is freed. Once, the third
 * failure marked the note failed for good.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { StorageFaultKind } from '../../../server/storage/faults.js';
import { MAX_ATTEMPTS, startConversionWorker, type ConversionWorker } from '../../../server/conversion/worker.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { makeSpeech } from '../support/audio.js';
import { mountSmallDisk, type SmallDisk } from '../support/small-disk.js';
import { makeLink, putNote } from '../support/uploads.js';

let speechDir: string;
let disk: SmallDisk;
let t: TestApp;
let worker: ConversionWorker | undefined;

beforeAll(async () => {
  speechDir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-audio-'));
  await makeSpeech(speechDir);
  disk = await mountSmallDisk(8);
  // The database elsewhere (PostgreSQL): only the audio's disk fills up.
  t = await startTestApp('postgres', { DATA_DIR: disk.dir });
});
afterAll(async () => {
  await worker?.stop();
  await t?.close();
  await disk?.remove();
  await rm(speechDir, { recursive: true, force: true });
});

describe('a conversion on a full disk', () => {
  it('should be tried again later, never count toward giving the note up, and convert once space is freed', async () => {
    const token = await makeLink(t.app.repo);
    const noteId = randomUUID();
    expect((await putNote(t.app, { token, noteId, body: await readFile(path.join(speechDir, 'speech.webm')) })).statusCode).toBe(201);
    await disk.fill();

    const faults: StorageFaultKind[] = [];
    const failed: string[] = [];
    worker = startConversionWorker({
      repo: t.app.repo,
      blobs: t.app.blobs,
      log: t.app.log,
      ffmpegTimeoutMs: 60_000,
      maxNoteSeconds: 75,
      pollMs: 50,
      storageFaultPauseMs: 50,
      events: { converted: () => {}, failed: (kind) => failed.push(kind), storageFault: (kind) => faults.push(kind) },
    });
    await vi.waitFor(() => expect(faults.length).toBeGreaterThan(MAX_ATTEMPTS + 1), { timeout: 60_000, interval: 50 });
    expect(new Set(faults)).toEqual(new Set(['disk_full']));
    expect(failed).toEqual([]);
    expect((await t.app.repo.notes.find(noteId))?.status).toBe('received');

    await disk.free();
    await vi.waitFor(async () => expect((await t.app.repo.notes.find(noteId))?.status).toBe('converted'), { timeout: 60_000, interval: 100 });
    expect(failed).toEqual([]);
  });
});
