import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { NoteRow } from '../../../server/db/repository.js';
import { linkIdOf } from '../../../server/links.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { FORMATS, makeSpeech } from '../support/audio.js';
import { makeLink, putNote, sha256Hex } from '../support/uploads.js';

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
  await run('ffmpeg', ['-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', 'anullsrc=r=48000:cl=mono', '-t', '60', '-c:a', 'libopus', '-b:a', '6k', '-dtx', '1', minute]);
  await run('ffmpeg', ['-nostdin', '-loglevel', 'error', '-stream_loop', '119', '-i', minute, '-c', 'copy', long]);
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', long]);
  expect(Number(stdout)).toBeGreaterThan(7199);
  return readFile(long);
}

async function settled(noteId: string, timeout = 120_000): Promise<NoteRow> {
  return vi.waitFor(async () => {
    const note = await t.app.repo.findNote(noteId);
    if (!note || note.status === 'received') throw new Error(`note ${noteId} is still waiting for conversion`);
    return note;
  }, { timeout, interval: 100 });
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
  it('should be refused at upload with 422 and a sentence the sender can act on, and nothing kept', async () => {
    const token = await makeLink(t.app.repo);
    const res = await putNote(t.app, { token, body: twoHours, contentType: 'audio/ogg;codecs=opus' });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ error: 'too_long', message: expect.stringMatching(/longer than 75 seconds.*shorter note/) });
    expect(await t.app.repo.listNotes(linkIdOf(token))).toEqual([]);
    const originals = await readdir(path.join(t.backend.config.dataDir, 'blobs', 'originals')).catch(() => []);
    expect(originals).toEqual([]);
  });

  it('should fail with the reason, within seconds, when already queued, and a real note behind it should convert within 20 s', async () => {
    // As if stored by a server from before the length rule: the converter must not spend minutes on it.
    const token = await makeLink(t.app.repo);
    const longId = randomUUID();
    const originalKey = `originals/${longId}.${sha256Hex(twoHours)}.old`;
    await t.app.blobs.put(originalKey, Readable.from([twoHours]), { maxBytes: 4e6 });
    await t.app.repo.insertNote({
      id: longId, linkId: linkIdOf(token), marker: 'mi-13', from: 'Mallory', contentType: 'audio/ogg',
      bytes: twoHours.length, sha256: sha256Hex(twoHours), originalKey, receivedAt: new Date().toISOString(),
    });
    const realId = randomUUID();
    const body = await readFile(path.join(dir, FORMATS['WebM/Opus'].file));
    const sent = Date.now();
    expect((await putNote(t.app, { token, body, noteId: realId })).statusCode).toBe(201);

    const real = await settled(realId);
    const waitedMs = Date.now() - sent;
    console.log(`a real note queued behind two hours of DTX Ogg was converted ${waitedMs} ms after its 201`);
    expect(real.status).toBe('converted');
    expect(waitedMs).toBeLessThan(20_000);

    const long = await settled(longId);
    expect(long.status).toBe('failed');
    expect(long.failureReason).toMatch(/longer than 75 s/);
    expect(long.convertedKey).toBeNull();
  }, 180_000);
});
