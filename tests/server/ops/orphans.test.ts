import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../../server/app.js';
import { testLog } from '../support/app.js';
import { loadConfig } from '../../../server/config/index.js';
import { openRepository } from '../../../server/db/index.js';
import type { Repository } from '../../../server/db/repository.js';
import { linkIdOf } from '../../../server/links.js';
import type { BlobStore } from '../../../server/storage/blob-store.js';
import { createLocalBlobStore } from '../../../server/storage/local.js';
import { createS3BlobStore } from '../../../server/storage/s3.js';
import { convertedKey } from '../../../server/storage/keys.js';
import { sweepOrphans } from '../../../server/ops/orphans.js';
import { queueNote } from '../../../server/races/note-deadlines.js';
import { BACKENDS, createBackend, type TestBackend } from '../support/backends.js';
import { startServerProcess, stopGracefully } from '../../../kit/serverProcess.js';
import { makeLink, sha256Hex } from '../support/uploads.js';

const HOUR = 3_600_000;

/** A conversion's scratch directory (server/conversion/scratch.ts) holding a copy of a recording, last changed `ageMs` ago. */
async function scratchDir(root: string, name: string, ageMs: number): Promise<void> {
  const at = path.join(root, name);
  await mkdir(at);
  await writeFile(path.join(at, 'original'), "a copy of someone's recording");
  const then = new Date(Date.now() - ageMs);
  await utimes(at, then, then);
}
let dir: string;
let s3: S3rver;
let s3Endpoint: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-orphans-'));
  s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: path.join(dir, 's3'),
    configureBuckets: BACKENDS.map((kind) => ({ name: `orphans-${kind}` })),
  });
  s3Endpoint = `http://127.0.0.1:${(await s3.run()).port}`;
});
afterAll(async () => {
  await s3.close();
  await rm(dir, { recursive: true, force: true });
});

/** Each store with the folder where its temp files of cut-off uploads live. */
const stores: [string, (kind: string) => Promise<{ blobs: BlobStore; tempDir: string; tempName: string }>][] = [
  [
    'disk',
    async (kind) => {
      const root = path.join(dir, `disk-${kind}`);
      return { blobs: createLocalBlobStore(root), tempDir: path.join(root, '.incoming'), tempName: 'cut-off.part' };
    },
  ],
  [
    'S3',
    async (kind) => {
      const spool = path.join(dir, `spool-${kind}`);
      const blobs = createS3BlobStore(
        {
          bucket: `orphans-${kind}`,
          endpoint: s3Endpoint,
          region: 'us-east-1',
          accessKeyId: 'S3RVER',
          secretAccessKey: 'S3RVER',
          forcePathStyle: true,
        },
        spool,
      );
      return { blobs, tempDir: spool, tempName: 'milenotes-cut-off.part' };
    },
  ],
];

describe.each(BACKENDS)('the orphan sweep on %s', (kind) => {
  let backend: TestBackend;
  let repo: Repository;

  beforeAll(async () => {
    backend = await createBackend(kind);
    repo = await openRepository(backend.config);
  });
  afterAll(async () => {
    await repo.close();
    await backend.cleanup();
  });

  const put = (blobs: BlobStore, key: string) => blobs.put(key, Readable.from([Buffer.from(key)]), { maxBytes: 1e4 });

  it.each(stores)('should remove files no row refers to and stale temp files on %s, only once older than the age limit', async (_name, make) => {
    const { blobs, tempDir, tempName } = await make(kind);
    const token = await makeLink(repo);
    const insert = async (id: string, originalKey: string) => {
      await put(blobs, originalKey);
      await queueNote(
        repo,
        {
          id,
          linkId: linkIdOf(token),
          marker: 'mi-13',
          from: 'Sam',
          contentType: 'audio/webm',
          bytes: 1,
          sha256: sha256Hex(Buffer.from(id)),
          originalKey,
          receivedAt: new Date().toISOString(),
        },
        (queued) => repo.notes.insert(queued),
      );
    };
    // A converted note, and a note whose converter wrote its M4A but has not recorded it yet.
    const done = randomUUID();
    await insert(done, `originals/${done}.a`);
    await put(blobs, convertedKey(done));
    await repo.jobs.markConverted(done, convertedKey(done), 1000);
    const converting = randomUUID();
    await insert(converting, `originals/${converting}.b`);
    await put(blobs, convertedKey(converting));
    // Left by crashes: an upload's file without its row, a deleted note's M4A, an upload cut off mid-way.
    const lostUpload = `originals/${randomUUID()}.c`;
    const deletedNote = convertedKey(randomUUID());
    await put(blobs, lostUpload);
    await put(blobs, deletedNote);
    await mkdir(tempDir, { recursive: true });
    await writeFile(path.join(tempDir, tempName), 'half an upload');
    // Not the sweep's to judge: files under another prefix.
    await put(blobs, 'elsewhere/kept');

    const now = await sweepOrphans(blobs, repo.blobRefs, HOUR);
    expect(now).toEqual({ blobs: [], tempFiles: 0, scratchDirs: 0 });

    const later = await sweepOrphans(blobs, repo.blobRefs, HOUR, Date.now() + 2 * HOUR);
    expect(later.blobs.sort()).toEqual([lostUpload, deletedNote].sort());
    expect(later.tempFiles).toBe(1);
    for (const key of [lostUpload, deletedNote]) expect(await blobs.exists(key)).toBe(false);
    for (const key of [`originals/${done}.a`, convertedKey(done), `originals/${converting}.b`, convertedKey(converting), 'elsewhere/kept']) {
      expect({ key, exists: await blobs.exists(key) }).toEqual({ key, exists: true });
    }
    expect(await readdir(tempDir)).toEqual([]);
  });

  it('should remove the scratch copies a killed conversion left, only once older than any conversion lasts', async () => {
    const root = await mkdtemp(path.join(dir, 'scratch-'));
    await scratchDir(root, 'milenotes-convert-dead', 2 * HOUR);
    // Older than the sweep's own age (1 ms here), younger than a conversion can last: maybe running.
    await scratchDir(root, 'milenotes-convert-running', HOUR / 2);
    await scratchDir(root, 'someone-elses', 2 * HOUR);
    const blobs = createLocalBlobStore(path.join(dir, `scratch-blobs-${kind}`));

    const result = await sweepOrphans(blobs, repo.blobRefs, 1, Date.now(), { root, minAgeMs: HOUR });
    expect(result.scratchDirs).toBe(1);
    expect((await readdir(root)).sort()).toEqual(['milenotes-convert-running', 'someone-elses']);
    // Without a root, no scratch is swept.
    expect((await sweepOrphans(blobs, repo.blobRefs, 1, Date.now() + 2 * HOUR)).scratchDirs).toBe(0);
    expect(await readdir(root)).toContain('milenotes-convert-running');
  });

  it('should run when the server starts', async () => {
    const start = await createBackend(kind, { CONVERT_WORKER: 'on', ORPHAN_MIN_AGE_MS: '1' });
    try {
      const blobs = createLocalBlobStore(path.join(start.config.dataDir, 'blobs'));
      const orphan = `originals/${randomUUID()}.lost`;
      await put(blobs, orphan);
      const app = await buildApp(loadConfig(start.env), { logStream: testLog });
      // Started as a server starts: its background work begins once it is ready.
      await app.ready();
      try {
        await vi.waitFor(async () => expect(await blobs.exists(orphan)).toBe(false), { timeout: 10_000, interval: 50 });
      } finally {
        await app.close();
      }
    } finally {
      await start.cleanup();
    }
  });
});

describe('a server started again after one was killed mid-conversion', () => {
  it('should remove the copy of the recording the killed conversion left in its temp folder, and only that', async () => {
    const backend = await createBackend('sqlite', { CONVERT_WORKER: 'on' });
    const tmp = await mkdtemp(path.join(dir, 'tmpdir-'));
    try {
      await scratchDir(tmp, 'milenotes-convert-killed', 24 * HOUR);
      await scratchDir(tmp, 'milenotes-convert-another-servers', 0);
      const server = await startServerProcess({ ...backend.env, TMPDIR: tmp });
      try {
        // One sweep judges every directory before it removes one: once the old one is gone, the young one was judged.
        await vi.waitFor(async () => expect(await readdir(tmp)).not.toContain('milenotes-convert-killed'), { timeout: 15_000, interval: 50 });
        expect(await readdir(tmp)).toContain('milenotes-convert-another-servers');
      } finally {
        await stopGracefully(server);
      }
    } finally {
      await backend.cleanup();
    }
  }, 60_000);
});
