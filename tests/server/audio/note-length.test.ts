import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { NoteRow } from '../../../server/db/repository.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { FORMATS, makeSpeech } from '../support/audio.js';
import { makeLink, putNote } from '../support/uploads.js';

const run = promisify(execFile);
let dir: string;
let twoHours: Buffer;
let t: TestApp;

/**
 * The two hours of Opus DTX silence (`-t 7200 -c:a libopus -b:a 6k -dtx 1`, 2.7 MB). Encoding
 * it takes minutes of CPU, so one minute is encoded and looped 120 times without re-encoding: the
 * same packets, the same size (2.7 MB), the same 7200 s.
 */
async function makeTwoHoursOfDtx(): Promise<Buffer> {
  const minute = path.join(dir, 'minute.ogg');
  const long = path.join(dir, 'long.ogg');
  await run('ffmpeg', [
    '-nostdin',
    '-loglevel',
    'error',
    '-f',
    'lavfi',
    '-i',
    'anullsrc=r=48000:cl=mono',
    '-t',
    '60',
    '-c:a',
    'libopus',
    '-b:a',
    '6k',
    '-dtx',
    '1',
    minute,
  ]);
  await run('ffmpeg', ['-nostdin', '-loglevel', 'error', '-stream_loop', '119', '-i', minute, '-c', 'copy', long]);
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', long]);
  expect(Number(stdout)).toBeGreaterThan(7199);
  return readFile(long);
}

async function settled(noteId: string, timeout = 120_000): Promise<NoteRow> {
  return vi.waitFor(
    async () => {
      const note = await t.app.repo.notes.find(noteId);
      if (!note || note.status === 'received') throw new Error(`note ${noteId} is still waiting for conversion`);
      return note;
    },
    { timeout, interval: 100 },
  );
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-length-'));
  await makeSpeech(dir);
  twoHours = await makeTwoHoursOfDtx();
  expect(twoHours.length).toBeGreaterThan(2_500_000);
  t = await startTestApp('sqlite', { CONVERT_WORKER: 'on' });
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a note longer than the recorder allows', () => {
  it('should be failed with the reason within seconds, and a real note sent right behind it should convert within 20 s', async () => {
    const token = await makeLink(t.app.repo);
    const longId = randomUUID();
    expect((await putNote(t.app, { token, body: twoHours, noteId: longId, contentType: 'audio/ogg;codecs=opus' })).statusCode).toBe(201);
    const realId = randomUUID();
    const body = await readFile(path.join(dir, FORMATS['WebM/Opus'].file));
    const sent = Date.now();
    expect((await putNote(t.app, { token, body, noteId: realId })).statusCode).toBe(201);

    const real = await settled(realId);
    const waitedMs = Date.now() - sent;
    console.log(`a real note sent right behind two hours of DTX Ogg was converted ${waitedMs} ms after its 201`);
    expect(real.status).toBe('converted');
    expect(waitedMs).toBeLessThan(20_000);

    const long = await settled(longId);
    expect(long.status).toBe('failed');
    expect(long.failureReason).toBe('The recording is longer than 75 s, the most a note may last. It was not converted.');
    expect(long.convertedKey).toBeNull();
    // What the sender's recorder can ask: the note arrived, and it failed.
    const status = await t.app.inject({ method: 'GET', url: `/api/r/${token}/notes/${longId}/status` });
    expect(status.json()).toEqual({ id: longId, status: 'failed', onRunnersPhone: false });
  }, 180_000);

  it('should be failed the same way on one worker alone, the real note waiting only for the probe', async () => {
    const single = await startTestApp('sqlite', { CONVERT_WORKER: 'on', CONVERT_CONCURRENCY: '1' });
    try {
      const token = await makeLink(single.app.repo);
      const longId = randomUUID();
      expect((await putNote(single.app, { token, body: twoHours, noteId: longId, contentType: 'audio/ogg' })).statusCode).toBe(201);
      const realId = randomUUID();
      const sent = Date.now();
      expect(
        (await putNote(single.app, { token, body: await readFile(path.join(dir, FORMATS['Ogg/Opus'].file)), noteId: realId, contentType: 'audio/ogg' }))
          .statusCode,
      ).toBe(201);
      const real = await vi.waitFor(
        async () => {
          const note = await single.app.repo.notes.find(realId);
          if (note?.status !== 'converted') throw new Error('not converted yet');
          return note;
        },
        { timeout: 120_000, interval: 100 },
      );
      console.log(`with one conversion at a time: ${Date.now() - sent} ms`);
      expect(real.status).toBe('converted');
      expect(Date.now() - sent).toBeLessThan(20_000);
      expect((await single.app.repo.notes.find(longId))?.status).toBe('failed');
    } finally {
      await single.close();
    }
  }, 180_000);
});
