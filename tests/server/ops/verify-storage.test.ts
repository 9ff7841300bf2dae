import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlobStore } from '../../../server/storage/blob-store.js';
import { convertedKey } from '../../../server/storage/keys.js';
import type { BackendKind } from '../support/backends.js';
import { runAdmin } from '../support/cli.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { startS3, type TestS3 } from '../support/s3.js';
import { fakeWebm, makeLink, putNote } from '../support/uploads.js';

const DEPLOYMENTS: [BackendKind, 'disk' | 'S3'][] = [
  ['sqlite', 'disk'],
  ['sqlite', 'S3'],
  ['postgres', 'disk'],
  ['postgres', 'S3'],
];

let s3: TestS3;
beforeAll(async () => {
  s3 = await startS3(['verify-sqlite', 'verify-postgres']);
});
afterAll(() => s3.close());

const put = (blobs: BlobStore, key: string, bytes: Buffer) => blobs.put(key, Readable.from([bytes]), { maxBytes: 1e6 });

describe.each(DEPLOYMENTS)('npm run admin -- verify-storage on %s with %s', (kind, store) => {
  let t: TestApp;
  let env: NodeJS.ProcessEnv;
  let converted: string;
  let waiting: string;

  beforeAll(async () => {
    t = await startTestApp(kind, store === 'S3' ? { ...s3.env, S3_BUCKET: `verify-${kind}` } : {});
    env = t.backend.env;
    const token = await makeLink(t.app.repo);
    [converted, waiting] = [randomUUID(), randomUUID()];
    for (const noteId of [converted, waiting]) expect((await putNote(t.app, { token, noteId, body: fakeWebm() })).statusCode).toBe(201);
    // The worker's part, stood in for: the M4A stored, then recorded with its size.
    const stored = await put(t.app.blobs, convertedKey(converted), Buffer.from('m4a bytes'));
    expect(await t.app.repo.jobs.markConverted(converted, convertedKey(converted), 4200, stored)).toBe(true);
  });
  afterAll(() => t.close());

  it('should find every note with its objects, and list an object no row names without failing', async () => {
    const clean = await runAdmin(env, 'verify-storage');
    expect(clean.code).toBe(0);
    expect(JSON.parse(clean.stdout)).toMatchObject({ healthy: true, notes: 2, objects: 3, missingCount: 0, wrongSizeCount: 0, orphanCount: 0 });

    const stray = convertedKey(randomUUID());
    await put(t.app.blobs, stray, Buffer.from('left by a crash'));
    const withOrphan = await runAdmin(env, 'verify-storage');
    expect(withOrphan.code).toBe(0);
    expect(JSON.parse(withOrphan.stdout)).toMatchObject({ healthy: true, objects: 4, orphanCount: 1, orphans: [{ key: stray, bytes: 15 }] });
    await t.app.blobs.delete(stray);
  });

  it('should fail on an object of another size than its row records', async () => {
    await put(t.app.blobs, convertedKey(converted), Buffer.from('m4a bytes, cut or grown'));
    const found = await runAdmin(env, 'verify-storage');
    expect(found.code).toBe(1);
    expect(JSON.parse(found.stdout)).toMatchObject({ healthy: false, wrongSizeCount: 1, wrongSize: [{ key: convertedKey(converted), recorded: 9 }] });
    await put(t.app.blobs, convertedKey(converted), Buffer.from('m4a bytes'));
  });

  it('should fail naming the note whose original is gone', async () => {
    const row = (await t.app.repo.notes.find(waiting))!;
    await t.app.blobs.delete(row.originalKey);
    const found = await runAdmin(env, 'verify-storage');
    expect(found.code).toBe(1);
    expect(found.stderr).toContain(row.originalKey);
    expect(JSON.parse(found.stdout)).toMatchObject({ healthy: false, missingCount: 1, missing: [{ noteId: waiting, key: row.originalKey, kind: 'original' }] });
  });
});
