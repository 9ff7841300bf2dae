/** Owns the audio files under DATA_DIR/blobs: temp file, fsync, rename, fsync the folder, so a stored blob survives a crash. */
import { randomUUID } from 'node:crypto';
import { close, createReadStream, createWriteStream, type Dirent, fsync, open as openCallback, write, writev } from 'node:fs';
import { promisify } from 'node:util';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertSafeKey, Meter, removeOldFiles, type BlobStore, type ListedBlob } from './blob-store.js';

/** How the store makes what it wrote durable; tests watch it. */
export interface DiskSync {
  /** fsync of a file just written, through the descriptor that wrote it. */
  file(fd: number, file: string): Promise<void>;
  /** fsync of a folder, so a name added to it survives power loss. */
  folder(dir: string): Promise<void>;
}

// Made once: promisify builds a new function on each call, once per upload here.
const fsyncFd = promisify(fsync);

export const fsyncDisk: DiskSync = {
  file: (fd) => fsyncFd(fd),
  async folder(dir) {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
};

/**
 * Folder syncs coalesced per folder: a sync started after my rename covers it, so callers that
 * arrive while one is running share the next one (group commit for directory entries).
 */
function folderSyncer(fsyncFolder: (dir: string) => Promise<void>) {
  const state = new Map<string, { running?: Promise<void>; next?: Promise<void> }>();
  return (dir: string): Promise<void> => {
    const s = state.get(dir) ?? {};
    state.set(dir, s);
    if (s.next !== undefined) return s.next;
    const start = (): Promise<void> => {
      const run = fsyncFolder(dir).finally(() => {
        if (s.running === run) s.running = undefined;
      });
      s.running = run;
      return run;
    };
    if (!s.running) return start();
    const next: Promise<void> = s.running
      .catch(() => {})
      .then(() => {
        s.next = undefined;
        return start();
      });
    s.next = next;
    return next;
  };
}

/** Files under root whose key starts with prefix; the temp folder is not part of the store's keys. */
async function* walk(root: string, prefix: string, dir = root): AsyncGenerator<ListedBlob> {
  let entries: Dirent[];
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
      if (info) yield { key, modifiedAt: info.mtime, bytes: info.size };
    }
  }
}

/**
 * Folders made once per process: each mkdir is a trip through libuv's thread pool, queued behind
 * the fsyncs of every upload in flight. A folder removed since is made again (see put).
 */
function folderMaker() {
  const made = new Map<string, Promise<unknown>>();
  return {
    ensure(dir: string): Promise<unknown> {
      let done = made.get(dir);
      if (!done) {
        // A resumable upload's parts each have a folder: forget them all now and then.
        if (made.size >= 1000) made.clear();
        done = mkdir(dir, { recursive: true });
        made.set(dir, done);
        done.catch(() => made.delete(dir));
      }
      return done;
    },
    forget: () => made.clear(),
  };
}

const openFd = promisify(openCallback) as (file: string, flags: string) => Promise<number>;
const isMissing = (err: unknown) => (err as NodeJS.ErrnoException)?.code === 'ENOENT';

export function createLocalBlobStore(root: string, sync: DiskSync = fsyncDisk): BlobStore {
  const syncFolder = folderSyncer(sync.folder);
  const folders = folderMaker();
  const tmpDir = path.join(root, '.incoming');
  const pathOf = (key: string) => {
    assertSafeKey(key);
    return path.join(root, key);
  };

  return {
    async put(key, body, { maxBytes }) {
      const target = pathOf(key);
      const folder = path.dirname(target);
      await Promise.all([folders.ensure(tmpDir), folders.ensure(folder)]);
      // Temp files live in the same file system as the target so the rename is atomic.
      // randomUUID draws from a cached pool: randomBytes asked the system for fresh bytes on every upload.
      const tmp = path.join(tmpDir, `${randomUUID()}.part`);
      const meter = new Meter(maxBytes);
      try {
        let fd: number;
        try {
          fd = await openFd(tmp, 'wx');
        } catch (err) {
          if (!isMissing(err)) throw err;
          // The temp folder went (removed by hand, or a test's cleanup): make it again, once.
          folders.forget();
          await Promise.all([folders.ensure(tmpDir), folders.ensure(folder)]);
          fd = await openFd(tmp, 'wx');
        }
        // The stream owns the descriptor: it closes it, and with flush it fsyncs it first, so
        // the file is synced through the descriptor that wrote it (no second open and close), and
        // the pipeline ends only after that fsync.
        const streamFs = {
          write,
          writev,
          close,
          fsync: (syncFd: number, done: (err: Error | null) => void) => void sync.file(syncFd, tmp).then(() => done(null), done),
        };
        await pipeline(body, meter, createWriteStream(tmp, { fd, flush: true, fs: streamFs }));
        await rename(tmp, target).catch(async (err: unknown) => {
          if (!isMissing(err)) throw err;
          folders.forget();
          await folders.ensure(folder);
          await rename(tmp, target);
        });
        await syncFolder(folder);
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
