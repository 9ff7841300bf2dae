/**
 * A note sent to a server whose data folder is full (a real small file system filled to its last
 * byte, so the store meets a real ENOSPC): refused with 503 storage_full and Retry-After, nothing
 * partial kept, and taken and converted once space is freed. It once answered 500.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { makeSpeech } from '../support/audio.js';
import { BACKENDS } from '../support/backends.js';
import { append, offsetOf, partialCreation, send } from '../support/resumable.js';
import { mountSmallDisk, type SmallDisk } from '../support/small-disk.js';
import { makeLink, putNote } from '../support/uploads.js';

let speech: Buffer;
let speechDir: string;

beforeAll(async () => {
  speechDir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-audio-'));
  await makeSpeech(speechDir);
  speech = await readFile(path.join(speechDir, 'speech.webm'));
});
afterAll(() => rm(speechDir, { recursive: true, force: true }));

/** Every file under the data folder's blobs, the store's temp folder included. */
async function blobFiles(dataDir: string): Promise<string[]> {
  const root = path.join(dataDir, 'blobs');
  return ((await readdir(root, { recursive: true, withFileTypes: true }).catch(() => [])) as Array<{ isFile(): boolean; name: string; parentPath: string }>)
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)));
}

describe.each(BACKENDS)('a note sent while the data folder is full, on %s', (kind) => {
  let disk: SmallDisk;
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    disk = await mountSmallDisk(8);
    t = await startTestApp(kind, { DATA_DIR: disk.dir, CONVERT_WORKER: 'on', METRICS: 'on', READY_MIN_FREE_MB: '0' });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await t?.close();
    await disk?.remove();
  });

  it('should be refused with 503 storage_full and Retry-After, keep nothing of it, and be taken and converted once space is freed', async () => {
    const token = await makeLink(t.app.repo);
    const noteId = randomUUID();
    await disk.fill();

    const refused = await putNote(t.app, { token, body: speech, noteId });
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.json()).toMatchObject({ error: 'storage_full', message: expect.stringContaining('kept on your phone') });
    expect(await t.app.repo.notes.find(noteId)).toBeUndefined();
    expect(await blobFiles(disk.dir)).toEqual([]);
    const metrics = (await t.app.inject('/metrics')).body;
    expect(metrics).toContain('milenotes_storage_faults_total{kind="disk_full",during="request"} 1');

    await disk.free();
    const taken = await putNote(t.app, { token, body: speech, noteId });
    expect(taken.statusCode).toBe(201);
    const converted = await vi.waitFor(
      async () => {
        const note = await t.app.repo.notes.find(noteId);
        if (note?.status !== 'converted') throw new Error(`note is ${note?.status}`);
        return note;
      },
      { timeout: 30_000, interval: 100 },
    );
    expect(converted.convertedKey).toBeTruthy();
  });

  it('should refuse an append of a resumable upload with 503 storage_full, keep the offset it had, and finish the note once space is freed', async () => {
    const token = await makeLink(t.app.repo);
    const noteId = randomUUID();
    const first = Math.floor(speech.length / 2);
    expect((await send(base, partialCreation(token, noteId, speech, first))).status).toBe(201);
    await disk.fill();

    const refused = await send(base, append(token, noteId, speech, first));
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('60');
    expect(JSON.parse(refused.body)).toMatchObject({ error: 'storage_full' });
    await disk.free();
    // What the server holds is what it held before the refused append (SQLite on a full disk refuses even this HEAD).
    expect((await offsetOf(base, token, noteId)).headers['upload-offset']).toBe(String(first));
    const done = await send(base, append(token, noteId, speech, first));
    expect(done.status, done.body).toBe(201);
    await vi.waitFor(async () => expect((await t.app.repo.notes.find(noteId))?.status).toBe('converted'), { timeout: 30_000, interval: 100 });
  });
});
