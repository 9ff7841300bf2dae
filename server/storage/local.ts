/** Owns the audio files under DATA_DIR/blobs: temp file, fsync, rename, fsync the folder, so a stored blob survives a crash. */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertSafeKey, Meter, removeOldFiles, type BlobStore, type ListedBlob } from './blob-store.js';

async function fsyncPath(p: string, flags: string): Promise<void> {
  const handle = await open(p, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Folder syncs coalesced per folder: a sync started after my rename covers it, so callers that
 * arrive while one is running share the next one (group commit for directory entries).
 */
function folderSyncer() {
  const state = new Map<string, { running?: Promise<void>; next?: Promise<void> }>();
  return (dir: string): Promise<void> => {
    const s = state.get(dir) ?? {};
    state.set(dir, s);
    if (s.next) return s.next;
    const start = (): Promise<void> => {
      const run = fsyncPath(dir, 'r').finally(() => {
        if (s.running === run) s.running = undefined;
      });
      s.running = run;
      return run;
    };
    if (!s.running) return start();
    const next: Promise<void> = s.running.catch(() => {}).then(() => {
      s.next = undefined;
      return start();
    });
    s.next = next;
    return next;
  };
}

/** Files under root whose key starts with prefix; the temp folder is not part of the store's keys. */
async function* walk(root: string, prefix: string, dir = root): AsyncGenerator<ListedBlob> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  for (const entry of entries) {
    const file = path.join(dir, entry.name);
    const key = path.relative(root, file).split(path.sep).join('/');
    if (key.startsWith('.')) continue;
    if (entry.isDirectory()) {
      if (prefix.startsWith(`${key}/`) || key.startsWith(prefix)) yield* walk(root, prefix, file);
    } else if (entry.isFile() && key.startsWith(prefix)) {
      const info = await stat(file).catch(() => undefined); // deleted meanwhile
      if (info) yield { key, modifiedAt: info.mtime };
    }
  }
}

export function createLocalBlobStore(root: string): BlobStore {
  const syncFolder = folderSyncer();
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
        await syncFolder(path.dirname(target));
      } catch (err) {
        await rm(tmp, { force: true });
        throw err;
      }
      return { bytes: meter.bytes, sha256: meter.digestHex() };
    },
    async get(key, range) {
      const file = pathOf(key);
      await stat(file); // fail here with ENOENT rather than later inside the stream
      return createReadStream(file, range && { start: range.start, end: range.end }) as Readable;
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
    list(prefix) {
      return walk(root, prefix);
    },
    removeStaleTemp(before) {
      return removeOldFiles(tmpDir, before, (name) => name.endsWith('.part'));
    },
  };
}
