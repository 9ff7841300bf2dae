import { fstatSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLocalBlobStore, fsyncDisk, type DiskSync } from '../../../server/storage/local.js';

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

describe('the local disk blob store, on what makes a note durable', () => {
  let root: string;
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('should fsync the whole file, then rename it, then fsync its folder, and only then resolve', async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'milenotes-durable-'));
    const events: string[] = [];
    let finishFolder!: () => void;
    const sync: DiskSync = {
      async file(fd, file) {
        // Every byte written before the sync, into the temp file, not yet under its key.
        events.push(`file ${path.basename(path.dirname(file))} ${fstatSync(fd).size}`);
        await fsyncDisk.file(fd, file);
      },
      async folder(dir) {
        events.push(`folder ${path.relative(root, dir)} ${await exists(path.join(root, 'originals/n1'))}`);
        await fsyncDisk.folder(dir);
        await new Promise<void>((resolve) => (finishFolder = resolve));
      },
    };
    const blobs = createLocalBlobStore(root, sync);
    const body = Buffer.alloc(200_000, 7);
    let resolved = false;
    const put = blobs
      .put('originals/n1', Readable.from([body.subarray(0, 70_000), body.subarray(70_000)]), { maxBytes: 1_000_000 })
      .then((r) => ((resolved = true), r));
    while (!finishFolder) await new Promise((r) => setTimeout(r, 5));
    expect(events).toEqual(['file .incoming 200000', 'folder originals true']);
    expect(resolved).toBe(false);
    finishFolder();
    expect((await put).bytes).toBe(200_000);
    expect(await readFile(path.join(root, 'originals/n1'))).toEqual(body);
  });

  it('should make its folders again when they were removed under it', async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'milenotes-durable-'));
    const blobs = createLocalBlobStore(root);
    await blobs.put('originals/a', Readable.from([Buffer.from('one')]), { maxBytes: 100 });
    await rm(root, { recursive: true, force: true });
    await blobs.put('originals/b', Readable.from([Buffer.from('two')]), { maxBytes: 100 });
    expect(await readFile(path.join(root, 'originals/b'), 'utf8')).toBe('two');
  });
});
