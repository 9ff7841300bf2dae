import { createReadStream } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { convertToM4a, MediaToolError } from '../../../server/audio/ffmpeg.js';
import type { AudioContainer } from '../../../server/audio/sniff.js';
import type { NoteRow } from '../../../server/db/repository.js';
import { linkIdOf } from '../../../server/links.js';
import { queueNote } from '../../../server/races/note-deadlines.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { FORMATS, makeSpeech } from '../support/audio.js';
import { ffconcatNaming, hlsNaming, mp4Referencing, webmThen, withId3 } from '../support/hostile.js';
import { makeLink, putNote, sha256Hex } from '../support/uploads.js';

// Runner A's converted note is a file on this server's disk; runner B tries to have it converted as B's own.
let dir: string;
let t: TestApp;
let secretFile: string;
let secretMs: number;
let tokenB: string;

async function settled(noteId: string): Promise<NoteRow> {
  return vi.waitFor(
    async () => {
      const note = await t.app.repo.notes.find(noteId);
      if (!note || note.status === 'received') throw new Error(`note ${noteId} is still waiting for conversion`);
      return note;
    },
    { timeout: 30_000, interval: 100 },
  );
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-hostile-'));
  await makeSpeech(dir);
  t = await startTestApp('sqlite', { CONVERT_WORKER: 'on' });
  const tokenA = await makeLink(t.app.repo, 'chicago-2025', 'Alex');
  tokenB = await makeLink(t.app.repo, 'chicago-2025', 'Mallory');
  const noteA = randomUUID();
  const body = await readFile(path.join(dir, FORMATS['WebM/Opus'].file));
  expect((await putNote(t.app, { token: tokenA, body, noteId: noteA })).statusCode).toBe(201);
  const converted = await settled(noteA);
  expect(converted.status).toBe('converted');
  secretFile = path.join(t.backend.config.dataDir, 'blobs', converted.convertedKey!);
  secretMs = converted.durationMs!;
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

const attacks = () =>
  [
    ['ID3 + HLS playlist', withId3(hlsNaming(secretFile))],
    ['ID3 + ffconcat list', withId3(ffconcatNaming(secretFile))],
  ] as const;

describe('an upload that names another note’s file', () => {
  it.each(['audio/mpeg', 'audio/mp4', 'audio/webm'])('should be refused with 415 and a sentence when sent as %s, and nothing kept', async (contentType) => {
    for (const [name, body] of attacks()) {
      const res = await putNote(t.app, { token: tokenB, body, contentType });
      expect({ name, status: res.statusCode }).toEqual({ name, status: 415 });
      expect(res.json()).toMatchObject({ error: 'not_audio', message: expect.stringMatching(/^[A-Z].*\.$/) });
    }
    expect(await t.app.repo.notes.ofLink(linkIdOf(tokenB))).toEqual([]);
    const originals = await readdir(path.join(t.backend.config.dataDir, 'blobs', 'originals'));
    expect(originals).toHaveLength(1); // runner A's note only
  });

  it('should not be converted into the other note when it got in before the sniffer refused it', async () => {
    // A note stored by an older server, as the probe stored it: the converter must not trust it either.
    for (const [name, body] of attacks()) {
      const id = randomUUID();
      const originalKey = `originals/${id}.${sha256Hex(body)}.old`;
      await t.app.blobs.put(originalKey, Readable.from([body]), { maxBytes: 1e6 });
      await queueNote(
        t.app.repo,
        {
          id,
          linkId: linkIdOf(tokenB),
          marker: 'mi-13',
          from: 'Mallory',
          contentType: 'audio/mpeg',
          bytes: body.length,
          sha256: sha256Hex(body),
          originalKey,
          receivedAt: new Date().toISOString(),
        },
        (queued) => t.app.repo.notes.insert(queued),
      );
      const note = await settled(id);
      expect({ name, status: note.status, durationMs: note.durationMs }).toEqual({ name, status: 'failed', durationMs: null });
      expect(note.failureReason).toMatch(/not WebM, Ogg or MP4/);
    }
  });
});

describe('an MP4 whose track’s data lives in another note’s file', () => {
  it('should be accepted as MP4 but never converted into the other note', async () => {
    const body = mp4Referencing(await readFile(secretFile), secretFile);
    const noteId = randomUUID();
    expect((await putNote(t.app, { token: tokenB, body, noteId, contentType: 'audio/mp4' })).statusCode).toBe(201);
    const note = await settled(noteId);
    expect({ status: note.status, durationMs: note.durationMs }).toEqual({ status: 'failed', durationMs: null });
  });
});

describe('the converter', () => {
  // Below the sniffer: whatever container the bytes claim, ffmpeg reads them with that demuxer from a pipe only.
  it.each<AudioContainer>(['webm', 'ogg', 'mp4'])('should not follow a playlist hidden in a note it reads as %s', async (container) => {
    const bodies = [...attacks().map(([, b]) => b), webmThen(hlsNaming(secretFile)), Buffer.from(hlsNaming(secretFile))];
    for (const body of bodies) {
      const out = path.join(dir, `${container}-${randomUUID()}.m4a`);
      const attempt = convertToM4a(Readable.from([body]), container, out, { timeoutMs: 30_000, maxSeconds: 75 });
      await expect(attempt).rejects.toBeInstanceOf(MediaToolError);
      await expect(readFile(out)).rejects.toMatchObject({ code: 'ENOENT' });
    }
  });

  it('should still convert a real recording read from a pipe, in each browser format', async () => {
    for (const [name, format] of Object.entries(FORMATS)) {
      const container = ({ 'WebM/Opus': 'webm', 'Ogg/Opus': 'ogg', 'MP4/AAC': 'mp4' } as const)[name as keyof typeof FORMATS];
      const out = path.join(dir, `${container}.m4a`);
      await convertToM4a(createReadStream(path.join(dir, format.file)), container, out, { timeoutMs: 30_000, maxSeconds: 75 });
      expect((await readFile(out)).length).toBeGreaterThan(1000);
    }
    expect(secretMs).toBeGreaterThan(1000);
  });
});
