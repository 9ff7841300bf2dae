/**
 * A small real file system (tmpfs of a few MiB, mounted by the test: root only, which the suite
 * runs as here and in CI) that a test fills to its last byte and frees again, so writes meet a
 * real ENOSPC. Unmounted and removed by `remove`.
 */
import { execFile } from 'node:child_process';
import { open, mkdtemp, rm, rmdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface SmallDisk {
  dir: string;
  /** Writes a filler file until the file system has no byte left. */
  fill(): Promise<void>;
  /** Removes the filler. */
  free(): Promise<void>;
  remove(): Promise<void>;
}

export async function mountSmallDisk(sizeMiB: number): Promise<SmallDisk> {
  if (process.getuid?.() !== 0) throw new Error('a small file system needs a tmpfs mount, so these tests run as root (as CI does)');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-small-disk-'));
  await run('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m,mode=0777`, 'tmpfs', dir]);
  const filler = path.join(dir, 'filler');
  return {
    dir,
    async fill() {
      const handle = await open(filler, 'a');
      const chunk = Buffer.alloc(64 * 1024);
      try {
        for (let size = chunk.length; size >= 1; size = Math.floor(size / 2)) {
          // Write in ever smaller pieces until not even one byte fits.
          for (;;) {
            try {
              await handle.write(chunk, 0, size);
            } catch (err) {
              if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
              break;
            }
          }
        }
      } finally {
        await handle.close();
      }
    },
    free: () => rm(filler, { force: true }),
    async remove() {
      await run('umount', [dir]);
      await rmdir(dir);
    },
  };
}
