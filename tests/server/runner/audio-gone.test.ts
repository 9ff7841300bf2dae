import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../../contract/runnerApi.js';
import { LOCAL_BLOBS_DIR } from '../../../server/storage/index.js';
import { convertedKey } from '../../../server/storage/keys.js';
import type { BackendKind } from '../support/backends.js';
import { startS3, type TestS3 } from '../support/s3.js';
import { startRunnerApp, type RunnerTestApp } from './support.js';

const STORES: [BackendKind, 'disk' | 'S3'][] = [
  ['sqlite', 'disk'],
  ['postgres', 'S3'],
];

describe.each(STORES)('a converted note whose audio is gone, on %s with %s blobs', (kind, store) => {
  let t: RunnerTestApp;
  let s3: TestS3 | undefined;
  let session: Session;
  let noteId: string;
  let shareToken: string;

  beforeAll(async () => {
    s3 = store === 'S3' ? await startS3() : undefined;
    t = await startRunnerApp(kind, { ...s3?.env, METRICS: 'on' });
    session = await t.signIn();
    const entry = await t.enter(session);
    noteId = await t.sendNote(entry.token, { convert: false });
    const key = convertedKey(noteId);
    const stored = await t.app.blobs.put(key, Readable.from([randomBytes(20_000)]), { maxBytes: 1e6, contentType: 'audio/mp4' });
    expect(await t.app.repo.jobs.markConverted(noteId, key, 4200, stored)).toBe(true);
    const share = await t.call(session, 'POST', '/api/shares', { noteId });
    expect(share.statusCode, share.body).toBe(201);
    shareToken = String(share.json().url).split('/').pop()!;
    expect((await runnerAudio()).statusCode).toBe(200);
    // Deleted under its note: by hand on the disk, or in the bucket.
    if (store === 'disk') await rm(path.join(t.backend.config.dataDir, LOCAL_BLOBS_DIR, key));
    else await t.app.blobs.delete(key);
  });
  afterAll(async () => {
    await t.close();
    await s3?.close();
  });

  const runnerAudio = (headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') =>
    t.app.inject({ method, url: `/api/notes/${noteId}/audio`, headers: { authorization: `Bearer ${session.accessToken}`, ...headers } });
  const gone = async () => {
    const text = (await t.app.inject('/metrics')).body;
    const line = text.split('\n').find((l) => l.startsWith('milenotes_audio_gone_total '));
    return Number(line?.split(' ')[1]);
  };

  it('should answer 404 audio_gone with its sentence, not 500, to the whole file, a range and a shared link, and count each', async () => {
    const before = await gone();
    for (const res of [
      await runnerAudio(),
      await runnerAudio({ range: 'bytes=100-' }),
      await t.app.inject({ url: `/api/s/${shareToken}/notes/${noteId}/audio` }),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'audio_gone', message: "This note's recording is no longer on the server, so it cannot be played." });
      // Nothing of the file it no longer has: no ETag a player would keep.
      expect(res.headers.etag).toBeUndefined();
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    }
    expect(await gone()).toBe(before + 3);
  });

  it('should answer a HEAD, which reads nothing, 404 too', async () => {
    const before = await gone();
    const res = await runnerAudio({}, 'HEAD');
    expect(res.statusCode).toBe(404);
    expect(res.headers.etag).toBeUndefined();
    expect(await gone()).toBe(before + 1);
  });
});
