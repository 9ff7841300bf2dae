import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { NoteRow } from '../../../server/db/repository.js';
import type { BlobStore } from '../../../server/storage/blob-store.js';
import { startTestApp, restartOn, type TestApp } from '../support/app.js';
import { decodedSeconds, FORMATS, integratedLufs, loudFrameShare, makeSpeech, probeStream, type FormatName } from '../support/audio.js';
import { fakeWebm, makeLink, putNote } from '../support/uploads.js';

let dir: string;
let speechSeconds: number;
let t: TestApp;
let token: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-audio-'));
  ({ seconds: speechSeconds } = await makeSpeech(dir));
  t = await startTestApp('sqlite', { CONVERT_WORKER: 'on' });
  token = await makeLink(t.app.repo);
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

async function settled(app: TestApp['app'], noteId: string): Promise<NoteRow> {
  return vi.waitFor(
    async () => {
      const note = await app.repo.notes.find(noteId);
      if (!note || note.status === 'received') throw new Error(`note ${noteId} is still waiting for conversion`);
      return note;
    },
    { timeout: 30_000, interval: 100 },
  );
}

async function download(blobs: BlobStore, key: string, file: string): Promise<string> {
  await pipeline(await blobs.get(key), createWriteStream(file));
  return file;
}

describe('audio conversion', () => {
  it.each(Object.keys(FORMATS) as FormatName[])('should turn a %s recording into loud-normalised mono AAC of the same length', async (name) => {
    const format = FORMATS[name];
    const body = await readFile(path.join(dir, format.file));
    const noteId = randomUUID();
    const res = await putNote(t.app, { token, body, noteId, contentType: format.contentType });
    expect(res.statusCode).toBe(201);

    const note = await settled(t.app, noteId);
    expect(note.status).toBe('converted');
    const out = await download(t.app.blobs, note.convertedKey!, path.join(dir, `${name.replace('/', '-')}.m4a`));
    expect(await probeStream(out)).toMatchObject({ codec: 'aac', channels: 1, container: expect.stringContaining('mp4') });
    expect(Math.abs((await decodedSeconds(out)) - speechSeconds)).toBeLessThan(0.3);
    expect(Math.abs(note.durationMs! / 1000 - speechSeconds)).toBeLessThan(0.3);
    expect(await loudFrameShare(out)).toBeGreaterThan(0.4);
    expect(Math.abs((await integratedLufs(out)) + 16)).toBeLessThan(2.5);
    // The original stays as it was uploaded.
    expect(await t.app.blobs.exists(note.originalKey)).toBe(true);
  });

  it('should mark a note that ffmpeg cannot decode as failed with the reason, and keep running', async () => {
    const noteId = randomUUID();
    expect((await putNote(t.app, { token, body: fakeWebm(4096), noteId })).statusCode).toBe(201);
    const note = await settled(t.app, noteId);
    expect(note.status).toBe('failed');
    expect(note.failureReason).toMatch(/could not be converted/);

    const next = randomUUID();
    const body = await readFile(path.join(dir, FORMATS['Ogg/Opus'].file));
    await putNote(t.app, { token, body, noteId: next, contentType: 'audio/ogg' });
    expect((await settled(t.app, next)).status).toBe('converted');
  });
});

describe('conversion jobs', () => {
  it('should leave no converted file behind when the note is deleted while ffmpeg runs', async () => {
    const first = await startTestApp('sqlite', { CONVERT_WORKER: 'off' });
    const tok = await makeLink(first.app.repo);
    const noteId = randomUUID();
    const body = await readFile(path.join(dir, FORMATS['WebM/Opus'].file));
    expect((await putNote(first.app, { token: tok, body, noteId })).statusCode).toBe(201);
    await first.app.close();

    // The account is deleted between the worker claiming the job and recording its result.
    const second = await restartOn(first.backend, { CONVERT_WORKER: 'off' });
    const repo = second.repo;
    let convertedKey = '';
    const vanishing: typeof repo = {
      ...repo,
      // From the moment the result is recorded, the note is gone, as after the account's deletion.
      notes: { ...repo.notes, find: async (id) => (convertedKey ? undefined : repo.notes.find(id)) },
      jobs: {
        ...repo.jobs,
        markConverted: async (_id, key) => {
          convertedKey = key;
          return false;
        },
      },
    };
    const { startConversionWorker } = await import('../../../server/conversion/worker.js');
    const worker = startConversionWorker({ repo: vanishing, blobs: second.blobs, log: second.log, ffmpegTimeoutMs: 30_000, maxNoteSeconds: 75, pollMs: 50 });
    try {
      await vi.waitFor(() => expect(convertedKey).not.toBe(''), { timeout: 30_000, interval: 50 });
      await vi.waitFor(async () => expect(await second.blobs.exists(convertedKey)).toBe(false), { timeout: 10_000, interval: 50 });
    } finally {
      await worker.stop();
      await second.close();
      await first.backend.cleanup();
    }
  });

  it('should survive a restart: a note received while no worker ran is converted by the next server', async () => {
    const first = await startTestApp('sqlite', { CONVERT_WORKER: 'off' });
    const tok = await makeLink(first.app.repo);
    const noteId = randomUUID();
    const body = await readFile(path.join(dir, FORMATS['WebM/Opus'].file));
    expect((await putNote(first.app, { token: tok, body, noteId })).statusCode).toBe(201);
    expect((await first.app.repo.notes.find(noteId))?.status).toBe('received');
    await first.app.close();

    const second = await restartOn(first.backend, { CONVERT_WORKER: 'on' });
    try {
      expect((await settled(second, noteId)).status).toBe('converted');
    } finally {
      await second.close();
      await first.backend.cleanup();
    }
  });
});
