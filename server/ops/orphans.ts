/**
 * Owns the orphan sweep: audio files no row refers to (a crash between writing the file and
 * committing its row, or between deleting a row and its files), temp files of uploads a crash
 * cut off, and conversions' scratch copies of recordings a crash left (./scratch.ts). Runs once
 * at start, then every ORPHAN_SWEEP_INTERVAL_MS. Nothing younger than ORPHAN_MIN_AGE_MS is
 * touched: an upload in flight writes its file before its row, and the converter writes a note's
 * M4A before recording it. Several servers may sweep at once: deleting a file twice is not an error.
 */
import type { FastifyBaseLogger } from 'fastify';
import { createLoop, type Loop } from '../background/loop.js';
import type { BlobRefStore } from '../db/blob-refs-store.js';
import type { BlobStore } from '../storage/blob-store.js';
import { convertedKey, NOTE_AUDIO_PREFIXES } from '../storage/keys.js';
import { removeStaleScratch, scratchRoot } from '../conversion/scratch.js';

export interface SweepResult {
  /** Keys of the blobs removed. */
  blobs: string[];
  /** Temp files removed. */
  tempFiles: number;
  /** Conversion scratch directories removed. */
  scratchDirs: number;
}

/** Where conversions' scratch directories are, and the age past which one can only be a dead server's. */
export interface ScratchSweep {
  root: string;
  minAgeMs: number;
}

/** One sweep; scratch directories too when `scratch` says where (never younger than `minAgeMs` either). */
export async function sweepOrphans(blobs: BlobStore, refs: BlobRefStore, minAgeMs: number, now = Date.now(), scratch?: ScratchSweep): Promise<SweepResult> {
  const before = new Date(now - minAgeMs);
  const old: string[] = [];
  // Only notes' audio is swept; anything else in the store (another feature's files) is left alone.
  for (const prefix of NOTE_AUDIO_PREFIXES) {
    for await (const blob of blobs.list(prefix)) if (blob.modifiedAt < before) old.push(blob.key);
  }
  // Asked after listing: a row committed meanwhile still protects its file.
  const referenced = await refs.referencedKeys(old);
  const converting = new Set([...(await refs.notesAwaitingConversion())].map(convertedKey));
  const orphans = old.filter((key) => !referenced.has(key) && !converting.has(key));
  for (const key of orphans) await blobs.delete(key);
  return {
    blobs: orphans,
    tempFiles: await blobs.removeStaleTemp(before),
    scratchDirs: scratch ? await removeStaleScratch(scratch.root, new Date(now - Math.max(minAgeMs, scratch.minAgeMs))) : 0,
  };
}

/** Sweeps at start, then every `intervalMs`, on the background loop; a failed sweep is logged and tried at the next. */
export function createOrphanSweeper(opts: {
  blobs: BlobStore;
  refs: BlobRefStore;
  log: FastifyBaseLogger;
  minAgeMs: number;
  intervalMs: number;
  /** The age past which a conversion's scratch directory can only be a dead server's (./scratch.ts). */
  scratchMinAgeMs: number;
}): Loop {
  const { blobs, refs, log, minAgeMs, intervalMs, scratchMinAgeMs } = opts;
  return createLoop({
    name: 'orphan sweep',
    pollMs: intervalMs,
    log,
    async round() {
      try {
        const result = await sweepOrphans(blobs, refs, minAgeMs, Date.now(), { root: scratchRoot(), minAgeMs: scratchMinAgeMs });
        if (result.blobs.length || result.tempFiles || result.scratchDirs) {
          log.info({ removed: result.blobs, tempFiles: result.tempFiles, scratchDirs: result.scratchDirs }, 'orphaned files removed');
        }
      } catch (err) {
        log.error({ err }, 'orphan sweep failed; trying again at the next one');
      }
      return 'idle';
    },
  });
}
