/**
 * Owns the conversion's scratch directories: each job copies the original into one under the
 * system's temp folder and removes it when it ends. A server killed mid-conversion never gets
 * there, and the copy of someone's recording stays on disk; the orphan sweep (./orphans.ts)
 * removes those once they are older than any conversion can last.
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { removeOldFiles } from '../storage/blob-store.js';

const PREFIX = 'milenotes-convert-';

/** Where scratch directories are made: the system's temp folder (TMPDIR), as the process sees it now. */
export const scratchRoot = (): string => os.tmpdir();

/** A new scratch directory for one conversion; the caller removes it. */
export const makeScratchDir = (): Promise<string> => mkdtemp(path.join(scratchRoot(), PREFIX));

/**
 * The age past which a scratch directory can only be a dead server's: longer than a conversion's
 * two ffmpeg runs plus ten minutes for the store's copies in and out.
 */
export const scratchMinAgeMs = (ffmpegTimeoutMs: number): number => 2 * ffmpegTimeoutMs + 10 * 60_000;

/** Removes the scratch directories in `root` last changed before `before`; answers how many. */
export const removeStaleScratch = (root: string, before: Date): Promise<number> => removeOldFiles(root, before, (name) => name.startsWith(PREFIX), 'directory');
