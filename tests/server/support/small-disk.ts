/**
 * A small real file system (tmpfs of a few MiB, mounted by the test: root only, which the suite
 * runs as here and in CI) that a test fills to its last byte and frees again, so writes meet a
 * real ENOSPC. Unmounted and removed by `remove`.
 */
import { execFile } from 'node:child_process';
import { open, mkdtemp, rm, rmdir, statfs } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
/** tmpfs's unit of space. */
const PAGE = 4096;

export interface SmallDisk {
  dir: string;
  /**
   * Writes a filler file until the file system has no byte left, then gives back `leaveBytes`
   * (whole 4 KiB pages: what tmpfs hands out) for the next writes to meet the end part-way.
   */
  fill(leaveBytes?: number): Promise<void>;
  /** Bytes a new file could still take. */
  freeBytes(): Promise<number>;
  /** Removes the filler. */
  free(): Promise<void>;
  remove(): Promise<void>;
}

export async function mountSmallDisk(sizeMiB: number): Promise<SmallDisk> {
  if (process.getuid?.() !== 0) throw new Error('a small file system needs a tmpfs mount, so these tests run as root (as CI does)');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-small-disk-'));
  await run('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m,mode=0777`, 'tmpfs', dir]);
  const filler = path.join(dir, 'filler');
  const freeBytes = async () => {
    const { bavail, bsize } = await statfs(dir);
    return bavail * bsize;
  };
  return {
    dir,
    async fill(leaveBytes = 0) {
      if (leaveBytes % PAGE !== 0) throw new Error(`leave whole pages of ${PAGE} bytes, not ${leaveBytes}`);
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
        if (leaveBytes > 0) await handle.truncate(Math.max(0, (await handle.stat()).size - leaveBytes));
      } finally {
        await handle.close();
      }
      const free = leaveBytes > 0 ? await freeBytes() : 0;
      if (free !== leaveBytes) throw new Error(`the small disk has ${free} bytes free, not the ${leaveBytes} asked for`);
    },
    freeBytes,
    free: () => rm(filler, { force: true }),
    async remove() {
      await run('umount', [dir]);
      await rmdir(dir);
    },
  };
}
