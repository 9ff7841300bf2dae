/** Owns the audio files under DATA_DIR/blobs: temp file, fsync, rename, fsync the folder, so a stored blob survives a crash. */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertSafeKey, Meter, type BlobStore } from './blob-store.js';

async function fsyncPath(p: string, flags: string): Promise<void> {
  const handle = await open(p, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export function createLocalBlobStore(root: string): BlobStore {
  const tmpDir = path.join(root, '.incoming');
  const pathOf = (key: string) => {
    assertSafeKey(key);
    return path.join(root, key);
  };

  return {
    async put(key, body, { maxBytes }) {
      const target = pathOf(key);
      await mkdir(tmpDir, { recursive: true });
      await mkdir(path.dirname(target), { recursive: true });
      // Temp files live in the same file system as the target so the rename is atomic.
      const tmp = path.join(tmpDir, `${randomBytes(12).toString('hex')}.part`);
      const meter = new Meter(maxBytes);
      try {
        const out = createWriteStream(tmp, { flags: 'wx' });
        await pipeline(body, meter, out);
        await fsyncPath(tmp, 'r');
        await rename(tmp, target);
        await fsyncPath(path.dirname(target), 'r');
      } catch (err) {
        await rm(tmp, { force: true });
        throw err;
      }
      return { bytes: meter.bytes, sha256: meter.digestHex() };
    },
    async get(key) {
      const file = pathOf(key);
      await stat(file); // fail here with ENOENT rather than later inside the stream
      return createReadStream(file) as Readable;
    },
    async exists(key) {
      try {
        return (await stat(pathOf(key))).isFile();
      } catch {
        return false;
      }
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
  };
}
