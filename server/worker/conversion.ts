/**
 * Owns background conversion: claims jobs from the repository (a lease, so several servers never
 * take the same one and a crashed server's job is taken again once its lease runs out), converts
 * the original with ffmpeg and stores the M4A beside it. Nudged after each new note; also polls.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyBaseLogger } from 'fastify';
import { convertToM4a, MediaToolError, probeDurationMs } from '../audio/ffmpeg.js';
import type { ClaimedJob, Repository } from '../db/repository.js';
import type { BlobStore } from '../storage/blob-store.js';
import { convertedKey } from '../storage/keys.js';

/** A job that keeps failing for reasons other than the audio itself is given up after this many tries. */
export const MAX_ATTEMPTS = 3;

export interface ConversionWorkerOptions {
  repo: Repository;
  blobs: BlobStore;
  log: FastifyBaseLogger;
  ffmpegTimeoutMs: number;
  pollMs?: number;
}

export interface ConversionWorker {
  /** Look for work now rather than at the next poll. */
  nudge(): void;
  /** Finishes the job in hand, then stops. */
  stop(): Promise<void>;
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 300);

export function startConversionWorker(opts: ConversionWorkerOptions): ConversionWorker {
  const { repo, blobs, log, ffmpegTimeoutMs } = opts;
  const pollMs = opts.pollMs ?? 2_000;
  const leaseMs = ffmpegTimeoutMs * 2 + 30_000;
  let stopped = false;
  let wake: (() => void) | undefined;
  let nudged = false;

  const sleep = () =>
    new Promise<void>((resolve) => {
      if (nudged || stopped) return resolve();
      const timer = setTimeout(() => {
        wake = undefined;
        resolve();
      }, pollMs);
      wake = () => {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
    });

  async function convert(job: ClaimedJob): Promise<void> {
    const note = await repo.findNote(job.noteId);
    if (!note) return; // rows are never deleted while a job references them; nothing to do
    const dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-convert-'));
    try {
      // ffmpeg reads the original from a file: MP4 with its index at the end cannot be read from a pipe.
      const input = path.join(dir, 'original');
      await pipeline(await blobs.get(note.originalKey), createWriteStream(input));
      const output = path.join(dir, 'note.m4a');
      let durationMs: number;
      try {
        await convertToM4a(input, output, ffmpegTimeoutMs);
        durationMs = await probeDurationMs(output, ffmpegTimeoutMs);
      } catch (err) {
        if (!(err instanceof MediaToolError) || err.timedOut) throw err;
        await repo.markFailed(note.id, `The audio could not be converted: ${oneLine(err.message)}`);
        log.warn({ noteId: note.id, reason: err.message }, 'note conversion failed');
        return;
      }
      const key = convertedKey(note.id);
      const { size } = await stat(output);
      await blobs.put(key, createReadStream(output), { maxBytes: Number.MAX_SAFE_INTEGER, contentType: 'audio/mp4', length: size });
      if (!(await repo.markConverted(note.id, key, durationMs))) {
        // The runner deleted their account while ffmpeg ran: leave no file of theirs behind.
        await blobs.delete(key);
        log.info({ noteId: note.id }, 'note deleted during conversion; its converted file was removed');
        return;
      }
      log.info({ noteId: note.id, durationMs }, 'note converted');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async function runOne(job: ClaimedJob): Promise<void> {
    try {
      await convert(job);
    } catch (err) {
      // Storage or database trouble, or a timeout: the job stays and is retried when its lease ends.
      log.error({ err, noteId: job.noteId, attempts: job.attempts }, 'conversion attempt failed');
      if (job.attempts >= MAX_ATTEMPTS) {
        const reason = `Conversion gave up after ${job.attempts} attempts: ${oneLine(err instanceof Error ? err.message : String(err))}`;
        await repo.markFailed(job.noteId, reason).catch((e: unknown) => log.error({ err: e }, 'could not mark a note failed'));
      }
    }
  }

  const loop = (async () => {
    while (!stopped) {
      nudged = false;
      let job: ClaimedJob | undefined;
      try {
        job = await repo.claimJob(Date.now(), leaseMs);
      } catch (err) {
        log.error({ err }, 'could not claim a conversion job');
      }
      if (job) await runOne(job);
      else await sleep();
    }
  })();

  return {
    nudge() {
      nudged = true;
      wake?.();
    },
    async stop() {
      stopped = true;
      wake?.();
      await loop;
    },
  };
}
