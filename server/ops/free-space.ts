/**
 * Owns the free-space check of /readyz (./readiness.ts): the folders notes are written to (DATA_DIR,
 * with SQLite and the local blobs, and the temp folder where S3 uploads and conversions wait) must
 * each keep READY_MIN_FREE_MB free, so a server stops being sent notes before a full disk refuses them.
 */
import { statfs } from 'node:fs/promises';

export interface SpaceWatch {
  dirs: string[];
  /** 0: not checked. */
  minFreeBytes: number;
}

const MIB = 1024 * 1024;

/** Bytes an unprivileged writer may still use under `dir`; undefined when the folder is not there (nothing is written to it). */
export async function freeBytes(dir: string): Promise<number | undefined> {
  try {
    const fs = await statfs(dir);
    return fs.bavail * fs.bsize;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** The reason when a watched folder is low on space ('low disk space: 3 MiB free under /data, 204 MiB wanted'), else undefined. */
export async function lowOnSpace(watch: SpaceWatch): Promise<string | undefined> {
  const dirs = [...new Set(watch.dirs)];
  const free = await Promise.all(dirs.map(freeBytes));
  const low = dirs.flatMap((dir, i) => (free[i] !== undefined && free[i]! < watch.minFreeBytes ? [`${Math.floor(free[i]! / MIB)} MiB free under ${dir}`] : []));
  return low.length > 0 ? `low disk space: ${low.join(', ')}, ${Math.ceil(watch.minFreeBytes / MIB)} MiB wanted (READY_MIN_FREE_MB)` : undefined;
}
