import { UPCOMING } from '../support/races.js';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../../contract/runnerApi.js';
import { parseRange } from '../../../server/runner/audio.js';
import { convertedKey } from '../../../server/storage/keys.js';
import type { BackendKind } from '../support/backends.js';
import { startS3, type TestS3 } from '../support/s3.js';
import { startRunnerApp, type RunnerTestApp } from './support.js';

describe('byte ranges for note audio', () => {
  it('should read start-end, open-ended and suffix ranges, clamped to the file', () => {
    expect(parseRange('bytes=0-1', 100)).toEqual([0, 1]);
    expect(parseRange('bytes=10-', 100)).toEqual([10, 99]);
    expect(parseRange('bytes=-10', 100)).toEqual([90, 99]);
    expect(parseRange('bytes=50-500', 100)).toEqual([50, 99]);
  });

  it('should call a range past the end unsatisfiable and ignore what it does not support', () => {
    expect(parseRange('bytes=100-', 100)).toBe('unsatisfiable');
    expect(parseRange('bytes=5-2', 100)).toBe('unsatisfiable');
    expect(parseRange(undefined, 100)).toBeUndefined();
    expect(parseRange('bytes=0-1,5-6', 100)).toBeUndefined();
    expect(parseRange('items=0-1', 100)).toBeUndefined();
  });
});

const STORES: [BackendKind, 'disk' | 'S3'][] = [
  ['sqlite', 'disk'],
  ['postgres', 'S3'],
  ['sqlite', 'S3'],
  ['postgres', 'disk'],
];

describe.each(STORES)('note audio on %s with %s blobs', (kind, store) => {
  let t: RunnerTestApp;
  let s3: TestS3 | undefined;
  let session: Session;
  let noteId: string;
  let shareToken: string;
  // Not compressible, larger than one read chunk: a cut and a resume cross chunk edges.
  const audio = randomBytes(200_000);
  const etag = `"${createHash('sha256').update(audio).digest('hex')}"`;

  beforeAll(async () => {
    s3 = store === 'S3' ? await startS3() : undefined;
    t = await startRunnerApp(kind, s3?.env ?? {});
    session = await t.signIn();
    const entry = await t.enter(session);
    noteId = await t.sendNote(entry.token, { convert: false });
    const key = convertedKey(noteId);
    const stored = await t.app.blobs.put(key, Readable.from([audio]), { maxBytes: 1e6, contentType: 'audio/mp4' });
    expect(await t.app.repo.jobs.markConverted(noteId, key, 4200, stored)).toBe(true);
    const share = await t.call(session, 'POST', '/api/shares', { noteId });
    expect(share.statusCode, share.body).toBe(201);
    shareToken = String(share.json().url).split('/').pop()!;
  });
  afterAll(async () => {
    await t.close();
    await s3?.close();
  });

  const runnerAudio = (headers: Record<string, string> = {}, id = noteId) =>
    t.app.inject({ url: `/api/notes/${id}/audio`, headers: { authorization: `Bearer ${session.accessToken}`, ...headers } });
  const sharedAudio = (headers: Record<string, string> = {}) => t.app.inject({ url: `/api/s/${shareToken}/notes/${noteId}/audio`, headers });

  it('should resume a download cut at 60 % to the very same bytes, the file named by a strong ETag', async () => {
    const whole = await runnerAudio();
    expect(whole.statusCode).toBe(200);
    expect(whole.headers.etag).toBe(etag);
    expect(whole.headers['accept-ranges']).toBe('bytes');
    expect(Number(whole.headers['content-length'])).toBe(audio.length);
    const cut = Math.floor(audio.length * 0.6);
    const kept = whole.rawPayload.subarray(0, cut);
    const rest = await runnerAudio({ range: `bytes=${cut}-`, 'if-range': etag });
    expect(rest.statusCode).toBe(206);
    expect(rest.headers['content-range']).toBe(`bytes ${cut}-${audio.length - 1}/${audio.length}`);
    expect(Number(rest.headers['content-length'])).toBe(audio.length - cut);
    expect(rest.headers.etag).toBe(etag);
    expect(Buffer.concat([kept, rest.rawPayload]).equals(audio)).toBe(true);
    const middle = await runnerAudio({ range: 'bytes=1000-1999' });
    expect(middle.statusCode).toBe(206);
    expect(middle.rawPayload.equals(audio.subarray(1000, 2000))).toBe(true);
  });

  it('should send the whole file with 200 when If-Range names another version of it', async () => {
    for (const stale of ['"0000"', `W/${etag}`, 'Tue, 24 Nov 2026 10:00:00 GMT']) {
      const res = await runnerAudio({ range: 'bytes=120000-', 'if-range': stale });
      expect(res.statusCode, stale).toBe(200);
      expect(res.headers['content-range']).toBeUndefined();
      expect(res.rawPayload.equals(audio)).toBe(true);
    }
  });

  it('should answer 416 with the file size for a range past its end', async () => {
    for (const range of [`bytes=${audio.length}-`, `bytes=${audio.length + 10}-${audio.length + 20}`]) {
      const res = await runnerAudio({ range });
      expect(res.statusCode, range).toBe(416);
      expect(res.headers['content-range']).toBe(`bytes */${audio.length}`);
    }
  });

  it('should answer 304 to If-None-Match naming the file, and the file to a stale tag', async () => {
    for (const tag of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await runnerAudio({ 'if-none-match': tag });
      expect(res.statusCode, tag).toBe(304);
      expect(res.headers.etag).toBe(etag);
      expect(res.rawPayload.length).toBe(0);
    }
    expect((await runnerAudio({ 'if-none-match': '"other"' })).statusCode).toBe(200);
  });

  it('should answer HEAD with the size and ETag and no body', async () => {
    const res = await t.app.inject({ method: 'HEAD', url: `/api/notes/${noteId}/audio`, headers: { authorization: `Bearer ${session.accessToken}` } });
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toBe(etag);
    expect(Number(res.headers['content-length'])).toBe(audio.length);
    expect(res.rawPayload.length).toBe(0);
  });

  it('should answer ranges, ETags and 304s alike for a shared note', async () => {
    expect((await sharedAudio({ 'if-none-match': etag })).statusCode).toBe(304);
    const rest = await sharedAudio({ range: 'bytes=120000-', 'if-range': etag });
    expect(rest.statusCode).toBe(206);
    expect(rest.rawPayload.equals(audio.subarray(120_000))).toBe(true);
    expect((await sharedAudio({ range: 'bytes=999999-' })).statusCode).toBe(416);
  });

  it('should give a note converted before digests were kept the ETag of its file', async () => {
    const entry = await t.enter(session, UPCOMING.chicago.id, 'Alex again');
    const older = await t.sendNote(entry.token, { convert: false });
    const key = convertedKey(older);
    await t.app.blobs.put(key, Readable.from([audio]), { maxBytes: 1e6, contentType: 'audio/mp4' });
    await t.app.repo.jobs.markConverted(older, key, 4200);
    const res = await runnerAudio({ range: 'bytes=-100' }, older);
    expect(res.statusCode).toBe(206);
    expect(res.headers.etag).toBe(etag);
    expect(res.rawPayload.equals(audio.subarray(-100))).toBe(true);
  });
});
