/**
 * The background work of one server, in the order it starts (../background/services.ts stops it in
 * reverse): the sweeps first, then pushes, then conversion. Conversion starts last and so stops
 * first: its grace limit (SHUTDOWN_GRACE_MS) runs from the start of the stop, and the jobs it hands
 * back at the limit reach another server soonest. Housekeeping of files runs where conversion runs:
 * API-only servers (CONVERT_WORKER=off) leave it alone.
 */
import type { FastifyBaseLogger } from 'fastify';
import { createBackground, type Background } from './background/services.js';
import type { Clock } from './clock.js';
import { uploadExpirySweepMs } from './config/background.js';
import type { Config } from './config/index.js';
import { createConversionWorker, type ConversionEvents, type ConversionWorker } from './conversion/worker.js';
import { scratchMinAgeMs } from './conversion/scratch.js';
import type { Repository } from './db/repository.js';
import { createDeviceSweep, DEVICE_SWEEP_MS, type Devices } from './devices/index.js';
import type { UploadService } from './intake/resumable/service.js';
import { createOrphanSweeper } from './ops/orphans.js';
import type { Push } from './push/index.js';
import type { BlobStore } from './storage/blob-store.js';

export interface WorkDeps {
  config: Config;
  repo: Repository;
  blobs: BlobStore;
  clock: Clock;
  log: FastifyBaseLogger;
}

/** The conversion worker, unstarted; undefined when CONVERT_WORKER=off. */
export function conversionOf({ config, repo, blobs, clock, log }: WorkDeps, events: ConversionEvents): ConversionWorker | undefined {
  if (!config.convertWorker) return undefined;
  return createConversionWorker({
    repo,
    blobs,
    log: log.child({ component: 'convert' }),
    ffmpegTimeoutMs: config.ffmpegTimeoutMs,
    maxNoteSeconds: config.maxNoteSeconds,
    concurrency: config.convertConcurrency,
    leaseMs: config.convertLeaseMs,
    heartbeatMs: config.convertHeartbeatMs,
    events,
    clock,
  });
}

/** Every piece of background work, added in the order it starts. */
export function backgroundWork(
  deps: WorkDeps,
  work: { conversion: ConversionWorker | undefined; push: Push; uploads: UploadService | undefined; devices: Devices },
): Background {
  const { config, repo, blobs, log } = deps;
  const background = createBackground(log.child({ component: 'background' }));
  if (work.conversion) {
    const orphans = createOrphanSweeper({
      blobs,
      refs: repo.blobRefs,
      log: log.child({ component: 'orphans' }),
      minAgeMs: config.orphanMinAgeMs,
      intervalMs: config.orphanSweepIntervalMs,
      scratchMinAgeMs: scratchMinAgeMs(config.ffmpegTimeoutMs),
    });
    background.add('orphan sweep', orphans);
  }
  // Every server sweeps the rows of phones unseen for the cookie's life (several sweeping is harmless).
  background.add('device sweep', createDeviceSweep(work.devices, DEVICE_SWEEP_MS, log.child({ component: 'devices' })));
  if (work.uploads) background.add('upload expiry', work.uploads.expiryLoop(uploadExpirySweepMs(config.uploadExpiryMs)));
  for (const { name, loop } of work.push.loops) background.add(name, loop);
  const { conversion } = work;
  if (conversion) background.add('conversion', { start: conversion.start, stop: () => conversion.stopWithin(config.shutdownGraceMs) });
  return background;
}
