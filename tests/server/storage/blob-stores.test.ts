import { mkdtemp, readdir, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buffer, text } from 'node:stream/consumers';
import { randomUUID } from 'node:crypto';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkIdOf } from '../../../server/links.js';
import { BlobTooLargeError, type BlobStore } from '../../../server/storage/blob-store.js';
import { createLocalBlobStore } from '../../../server/storage/local.js';
import { createS3BlobStore } from '../../../server/storage/s3.js';
import { startTestApp } from '../support/app.js';
import { fakeWebm, makeLink, putNote, sha256Hex } from '../support/uploads.js';

let dir: string;
let s3: S3rver;
let s3Env: NodeJS.ProcessEnv;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-blobs-'));
  s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: path.join(dir, 's3'), configureBuckets: [{ name: 'notes' }] });
  const { port } = await s3.run();
  s3Env = {
    S3_BUCKET: 'notes',
    S3_ENDPOINT: `http://127.0.0.1:${port}`,
    S3_REGION: 'us-east-1',
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    S3_FORCE_PATH_STYLE: 'true',
  };
});
afterAll(async () => {
  await s3.close();
  await rm(dir, { recursive: true, force: true });
});

const stores: [string, () => BlobStore][] = [
  ['local disk', () => createLocalBlobStore(path.join(dir, 'local'))],
  [
    'S3',
    () =>
      createS3BlobStore({
        bucket: 'notes',
        endpoint: s3Env.S3_ENDPOINT,
        region: 'us-east-1',
        accessKeyId: 'S3RVER',
        secretAccessKey: 'S3RVER',
        forcePathStyle: true,
      }),
  ],
];

describe.each(stores)('the %s blob store', (_name, make) => {
  it('should stream a body in, report its size and SHA-256, and give it back', async () => {
    const store = make();
    const body = Buffer.from('hello '.repeat(10_000));
    const key = `originals/${randomUUID()}/a`;
    const result = await store.put(key, Readable.from([body.subarray(0, 1000), body.subarray(1000)]), { maxBytes: 1_000_000 });
    expect(result).toEqual({ bytes: body.length, sha256: sha256Hex(body) });
    expect(await store.exists(key)).toBe(true);
    expect(await text(await store.get(key))).toBe(body.toString());
  });

  it('should give back only the byte range asked for, both ends included', async () => {
    const store = make();
    const body = Buffer.from(Array.from({ length: 300_000 }, (_, i) => i % 251));
    const key = `converted/${randomUUID()}.m4a`;
    await store.put(key, Readable.from([body]), { maxBytes: 1_000_000 });
    expect((await buffer(await store.get(key, { start: 180_000, end: 299_999 }))).equals(body.subarray(180_000))).toBe(true);
    expect((await buffer(await store.get(key, { start: 7, end: 7 }))).equals(body.subarray(7, 8))).toBe(true);
  });

  it('should store a 200 KB body that comes in one chunk', async () => {
    const store = make();
    const body = fakeWebm(200_000);
    const key = `originals/${randomUUID()}/b`;
    expect(await store.put(key, Readable.from([body]), { maxBytes: 1_000_000 })).toMatchObject({ bytes: body.length });
    expect(await store.exists(key)).toBe(true);
  });

  it('should refuse a body over the cap and keep nothing', async () => {
    const store = make();
    const key = `originals/${randomUUID()}/c`;
    const chunks = Array.from({ length: 20 }, () => Buffer.alloc(1024, 1));
    await expect(store.put(key, Readable.from(chunks), { maxBytes: 10_000 })).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(await store.exists(key)).toBe(false);
  });

  it('should delete a blob, and not mind deleting one that is gone', async () => {
    const store = make();
    const key = `converted/${randomUUID()}.m4a`;
    await store.put(key, Readable.from([Buffer.from('x')]), { maxBytes: 10 });
    await store.delete(key);
    expect(await store.exists(key)).toBe(false);
    await expect(store.delete(key)).resolves.toBeUndefined();
  });

  it('should refuse a key that climbs out of its root', async () => {
    await expect(make().put('../escape', Readable.from([Buffer.from('x')]), { maxBytes: 10 })).rejects.toThrow(/Unsafe blob key/);
  });
});

describe('the server on S3', () => {
  it('should keep uploaded notes in the bucket and nothing on local disk', async () => {
    const t = await startTestApp('sqlite', s3Env);
    try {
      const token = await makeLink(t.app.repo);
      const body = fakeWebm(50_000);
      expect((await putNote(t.app, { token, body })).statusCode).toBe(201);
      const [note] = await t.app.repo.notes.ofLink(linkIdOf(token));
      expect(await text(await t.app.blobs.get(note!.originalKey))).toBe(body.toString());
      expect(sha256Hex(body)).toBe(note!.sha256);
      const local = await readdir(t.backend.config.dataDir);
      expect(local).not.toContain('blobs');
    } finally {
      await t.close();
    }
  });
});

describe('the S3 blob store when S3 falters', () => {
  /** A proxy in front of s3rver that cuts the first PutObject midway and answers the second with 503. */
  async function falteringS3() {
    let puts = 0;
    const target = new URL(s3Env.S3_ENDPOINT!);
    const proxy = http.createServer((req, res) => {
      if (req.method === 'PUT') puts += 1;
      if (req.method === 'PUT' && puts === 1) {
        req.once('data', () => req.socket.destroy());
        return;
      }
      if (req.method === 'PUT' && puts === 2) {
        req.resume().once('end', () => res.writeHead(503, { 'content-type': 'application/xml' }).end('<Error><Code>SlowDown</Code></Error>'));
        return;
      }
      const upstream = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    return { endpoint, puts: () => puts, close: () => new Promise((resolve) => proxy.close(resolve)) };
  }

  it('should send a note again after a cut connection and a 503, from the spooled copy, and store it whole once', async () => {
    const faltering = await falteringS3();
    const spoolDir = path.join(dir, 'spool-faltering');
    const store = createS3BlobStore(
      {
        bucket: 'notes',
        endpoint: faltering.endpoint,
        region: 'us-east-1',
        accessKeyId: 'S3RVER',
        secretAccessKey: 'S3RVER',
        forcePathStyle: true,
      },
      spoolDir,
    );
    try {
      const body = fakeWebm(200_000);
      const key = `originals/${randomUUID()}`;
      const stored = await store.put(key, Readable.from([body.subarray(0, 70_000), body.subarray(70_000)]), { maxBytes: 1_000_000 });
      expect(stored).toEqual({ bytes: body.length, sha256: sha256Hex(body) });
      expect(faltering.puts()).toBe(3);
      expect(await buffer(await store.get(key))).toEqual(body);
      expect(await readdir(spoolDir)).toEqual([]);
    } finally {
      await faltering.close();
    }
  });
});
