/**
 * Owns background conversion: claims jobs from the repository (a short lease renewed by a
 * heartbeat while the job runs, ../background/lease.ts, so several servers never take the same one and a
 * crashed server's job is taken again soon after it stops beating), checks the original's
 * container, has the converter process turn it into an M4A (server/audio/converter.ts, which runs
 * server/audio/ffmpeg.ts, the length rule included) and stores the M4A beside it.
 * Several jobs run side by side, each with hard time limits, and a job is tried at most
 * MAX_ATTEMPTS times, so one bad file never holds up the others for long or for ever; an attempt
 * that meets a storage fault does not count and is tried again later (./storage-faults.ts).
 * Its slots go round on the background loop (../background/loop.ts): nudged after each new note; also polls.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyBaseLogger } from 'fastify';
import { startConverter, type Converter } from '../audio/converter.js';
import { MediaToolError } from '../audio/ffmpeg.js';
import { NoteTooLongError } from '../audio/length.js';
import { SNIFF_BYTES, sniffAudio, type AudioContainer } from '../audio/sniff.js';
import { holdLease, LeaseLostError, type HeldLease } from '../background/lease.js';
import { createLoop, type Round } from '../background/loop.js';
import { realClock, type Clock } from '../clock.js';
import { CONVERSION_LEASE_MS, CONVERSION_POLL_MS, heartbeatFor } from '../config/background.js';
import type { ClaimedJob, Repository } from '../db/repository.js';
import type { BlobStore } from '../storage/blob-store.js';
import { storageFaultOf, type StorageFaultKind } from '../storage/faults.js';
import { convertedKey } from '../storage/keys.js';
import { makeScratchDir } from './scratch.js';
import { createFaultDeferral, DEFAULT_STORAGE_FAULT_PAUSE_MS } from './storage-faults.js';

/**
 * A job whose attempts keep failing for reasons other than the audio itself (storage, database,
 * a time limit, a crash of the server running it) is given up after this many tries.
 */
export const MAX_ATTEMPTS = 3;

export interface ConversionWorkerOptions {
  repo: Repository;
  blobs: BlobStore;
  log: FastifyBaseLogger;
  /** Each ffmpeg run (two per note) is killed after this long; the attempt then counts as failed. */
  ffmpegTimeoutMs: number;
  /** Longer notes are failed with the reason, never converted (server/audio/length.ts). */
  maxNoteSeconds: number;
  /** Jobs converted at once. */
  concurrency?: number;
  /** How long an idle slot sleeps (default CONVERSION_POLL_MS, server/config/background.ts). */
  pollMs?: number;
  /**
   * How long a claim lasts without a heartbeat (default CONVERSION_LEASE_MS): a dead server's job is taken over
   * within this plus one poll. A failed attempt keeps its lease: the rest of it is the wait before the retry.
   */
  leaseMs?: number;
  /** How often the claim of a running job is renewed (default heartbeatFor(leaseMs)). */
  heartbeatMs?: number;
  /** How long a slot waits after a storage fault before it claims again (default 15 s). */
  storageFaultPauseMs?: number;
  /** Told of each outcome, for metrics (server/plugins/metrics.ts). */
  events?: ConversionEvents;
  /** Where ffmpeg runs (default: a converter process of the worker's own, closed when it stops). */
  converter?: Converter;
  /** The server's clock, which the queue's order by deadline is judged on (default the real one); leases stay on the real clock. */
  clock?: Clock;
}

export interface ConversionEvents {
  converted(seconds: number): void;
  /** `unplayable`: the audio itself failed (server/audio/ffmpeg.ts); `error`: a time limit, ffmpeg killed or not started, any other error (retried); `gave_up`: last attempt failed. */
  failed(kind: 'unplayable' | 'error' | 'gave_up'): void;
  /** An attempt met a storage fault: the job is tried again later and the attempt does not count. */
  storageFault(kind: StorageFaultKind): void;
}

export interface WorkerHeartbeat {
  /** False once every slot's loop has ended (stopped or crashed). */
  running: boolean;
  /** When a slot last went round (claimed, slept or finished a job). */
  lastBeatAt: number;
  /** The notes being converted now. */
  busyWith: string[];
}

export interface ConversionWorker {
  /** Starts its slots (the app does, with the rest of its background work). */
  start(): void;
  /** Look for work now rather than at the next poll. */
  nudge(): void;
  /** Finishes the jobs in hand, then stops. */
  stop(): Promise<void>;
  /** Lets the jobs in hand finish within `limitMs`; past that, hands them back so another server takes them now. */
  stopWithin(limitMs: number): Promise<void>;
  /** For /readyz and shutdown: is the loop going, and what is it doing. */
  heartbeat(): WorkerHeartbeat;
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 300);

/** The original's container, judged again from its first bytes as at upload (the row does not keep it). */
async function containerOf(file: string): Promise<AudioContainer | undefined> {
  const handle = await open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(SNIFF_BYTES), 0, SNIFF_BYTES, 0);
    return sniffAudio(buffer.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

/** A conversion worker already going (tests, the bench). */
export function startConversionWorker(opts: ConversionWorkerOptions): ConversionWorker {
  const worker = createConversionWorker(opts);
  worker.start();
  return worker;
}

/** A conversion worker, started by the app with its other background work. */
export function createConversionWorker(opts: ConversionWorkerOptions): ConversionWorker {
  const { repo, blobs, log, ffmpegTimeoutMs, maxNoteSeconds } = opts;
  const leaseMs = opts.leaseMs ?? CONVERSION_LEASE_MS;
  const heartbeatMs = opts.heartbeatMs ?? heartbeatFor(leaseMs);
  const faultPauseMs = opts.storageFaultPauseMs ?? DEFAULT_STORAGE_FAULT_PAUSE_MS;
  let converter: Converter | undefined;
  /** The jobs in hand, by note id. */
  const busy = new Map<string, ClaimedJob>();

  /** Marks the note failed for a reason in the audio itself: trying again would end the same way. */
  async function fail(noteId: string, reason: string): Promise<void> {
    await repo.jobs.markFailed(noteId, reason);
    log.warn({ noteId, reason }, 'note conversion failed');
  }

  async function convert(job: ClaimedJob, lease: HeldLease): Promise<void> {
    const note = await repo.notes.find(job.noteId);
    if (!note) return; // rows are never deleted while a job references them; nothing to do
    const started = Date.now();
    const { signal } = lease;
    const dir = await makeScratchDir();
    try {
      // One copy from the store (one S3 GET); the converter feeds it to ffmpeg through a pipe, never by name.
      const input = path.join(dir, 'original');
      await pipeline(await blobs.get(note.originalKey), createWriteStream(input));
      const container = await containerOf(input);
      if (!container) return await fail(note.id, 'The recording is not WebM, Ogg or MP4 audio, so it was not converted.');
      const output = path.join(dir, 'note.m4a');
      let durationMs: number;
      try {
        ({ durationMs } = await converter!.convert(input, container, output, { timeoutMs: ffmpegTimeoutMs, maxSeconds: maxNoteSeconds, signal }));
      } catch (err) {
        if (err instanceof NoteTooLongError) return await fail(note.id, `${err.message} It was not converted.`);
        // Only a MediaToolError is the note's doing (server/audio/ffmpeg.ts): a full disk is a
        // StorageFault, tried again later; a time limit or a killed ffmpeg, an attempt that counts.
        if (!(err instanceof MediaToolError) || err.timedOut) throw err;
        opts.events?.failed('unplayable');
        return await fail(note.id, `The audio could not be converted: ${oneLine(err.message)}`);
      }
      const key = convertedKey(note.id);
      // Renewed just before: the lease then outlasts the store's write, so no new holder writes the file meanwhile.
      await lease.confirm();
      const stored = await blobs.put(key, createReadStream(output), { maxBytes: Number.MAX_SAFE_INTEGER, contentType: 'audio/mp4' });
      if (!(await repo.jobs.markConverted(note.id, key, durationMs, stored, job))) {
        // Lost the claim during the write: the file is the new holder's to write and record.
        if (await repo.notes.find(note.id)) throw new LeaseLostError(note.id);
        // The runner deleted their account while ffmpeg ran: leave no file of theirs behind.
        await blobs.delete(key);
        log.info({ noteId: note.id }, 'note deleted during conversion; its converted file was removed');
        return;
      }
      opts.events?.converted((Date.now() - started) / 1000);
      log.info({ noteId: note.id, durationMs }, 'note converted');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  const deferral = createFaultDeferral({ repo, log, leaseMs, heartbeatMs, onFault: (kind) => opts.events?.storageFault(kind) });

  /** Resolves to 'fault' when the attempt met a storage fault: the slot then rests before claiming again. */
  async function runOne(job: ClaimedJob, claimedAt: number): Promise<'fault' | undefined> {
    if (deferral.counted(job) > MAX_ATTEMPTS) {
      // Every earlier attempt was claimed and never reported back: the process running it died.
      const reason = `Conversion gave up after ${MAX_ATTEMPTS} attempts: the converter stopped during each of them.`;
      await repo.jobs.markFailed(job.noteId, reason).catch((err: unknown) => log.error({ err }, 'could not mark a note failed'));
      log.warn({ noteId: job.noteId, attempts: job.attempts }, 'note conversion given up');
      return undefined;
    }
    const renew = (now: number, ms: number) => repo.jobs.renew(job, now, ms);
    const lease = holdLease({ id: job.noteId, what: 'conversion', renew, log, onBeat: () => loop.beat() }, { leaseMs, heartbeatMs });
    try {
      await convert(job, lease);
      deferral.settled(job.noteId);
    } catch (err) {
      if (err instanceof LeaseLostError) {
        // Another server has the job (this one stalled past the lease): it converts and records it.
        log.warn({ noteId: job.noteId }, 'conversion lease lost: stopped, leaving the job to its new holder');
        return undefined;
      }
      const fault = storageFaultOf(err);
      if (fault) {
        await deferral.defer(job, lease, claimedAt, fault, err);
        return 'fault';
      }
      // A time limit or another failure: the job keeps its lease and is retried when it ends.
      const counted = deferral.counted(job);
      log.error({ err, noteId: job.noteId, attempts: counted }, 'conversion attempt failed');
      opts.events?.failed(counted >= MAX_ATTEMPTS ? 'gave_up' : 'error');
      if (counted >= MAX_ATTEMPTS) {
        deferral.settled(job.noteId);
        const reason = `Conversion gave up after ${counted} attempts: ${oneLine(err instanceof Error ? err.message : String(err))}`;
        await repo.jobs.markFailed(job.noteId, reason).catch((e: unknown) => log.error({ err: e }, 'could not mark a note failed'));
      }
    } finally {
      lease.release();
    }
    return undefined;
  }

  /** One slot's round: claim a job and convert it; rest after a storage fault. */
  async function round(): Promise<Round> {
    let job: ClaimedJob | undefined;
    const claimedAt = Date.now();
    try {
      job = await repo.jobs.claim(claimedAt, leaseMs, (opts.clock ?? realClock).now());
    } catch (err) {
      const fault = storageFaultOf(err);
      if (!fault) {
        log.error({ err }, 'could not claim a conversion job');
        return 'idle';
      }
      log.warn({ err, kind: fault }, 'could not claim a conversion job: storage fault');
      opts.events?.storageFault(fault);
      return { restMs: faultPauseMs };
    }
    if (!job) return 'idle';
    busy.set(job.noteId, job);
    try {
      return (await runOne(job, claimedAt)) === 'fault' ? { restMs: faultPauseMs } : 'again';
    } finally {
      busy.delete(job.noteId);
    }
  }

  const loop = createLoop({ name: 'conversion', pollMs: opts.pollMs ?? CONVERSION_POLL_MS, slots: opts.concurrency, round, log });
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= loop.stop().then(async () => {
      if (!opts.converter) await converter?.close();
    }));

  return {
    start() {
      converter ??= opts.converter ?? startConverter(log);
      converter.prepare();
      loop.start();
    },
    nudge: loop.nudge,
    stop,
    async stopWithin(limitMs) {
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), limitMs);
      });
      const finished = await Promise.race([stop().then(() => true), limit]);
      clearTimeout(timer);
      if (finished) return;
      for (const job of busy.values()) {
        await repo.jobs.handBack(job).catch((err: unknown) => log.error({ err, noteId: job.noteId }, 'could not hand a conversion job back'));
        log.warn({ noteId: job.noteId }, 'stopped in the middle of a conversion; the job was handed back for another server');
      }
    },
    heartbeat: () => ({ ...loop.heartbeat(), busyWith: [...busy.keys()] }),
  };
}
