/** The gauges /metrics reads at each scrape: the conversion queue (from the database, so every server's) and the free space /readyz watches. */
import { Gauge, type Registry } from 'prom-client';
import type { QueueDeadlines } from '../db/job-store.js';
import { freeBytes } from '../ops/free-space.js';

/** The folders /readyz keeps free space in (server/ops/free-space.ts), by a short name, and the least each must keep. */
export interface WatchedSpace {
  folders: Record<string, string>;
  minFreeBytes: number;
}

/** The queue's depth and, given `queueDeadlines`, its waiting notes by race and how overdue the worst is. */
export function queueGauges(registry: Registry, queueDepth: () => Promise<number>, queueDeadlines?: () => Promise<QueueDeadlines>): void {
  new Gauge({
    name: 'milenotes_conversion_queue_depth',
    help: 'Notes waiting for conversion or being converted (all servers: it is read from the database).',
    registers: [registry],
    async collect() {
      // The database unreachable must not take /metrics down with it: the last depth stands.
      await queueDepth().then(
        (depth) => this.set(depth),
        () => {},
      );
    },
  });
  if (queueDeadlines) {
    // Both gauges below are collected together on each scrape: they share one read of the queue.
    let reading: Promise<QueueDeadlines> | undefined;
    const deadlines = () =>
      (reading ??= queueDeadlines().finally(() => {
        reading = undefined;
      }));
    new Gauge({
      name: 'milenotes_conversion_queue_waiting',
      help: 'Notes waiting for conversion or being converted (all servers), by race: live (a race live now) or later (races to come, past races).',
      labelNames: ['race'],
      registers: [registry],
      async collect() {
        // As the depth: an unreachable database leaves the last figures standing, /metrics answers.
        await deadlines().then(
          ({ live, later }) => {
            this.set({ race: 'live' }, live);
            this.set({ race: 'later' }, later);
          },
          () => {},
        );
      },
    });
    new Gauge({
      name: 'milenotes_conversion_overdue_seconds',
      help: 'How far past its deadline (the runner expected at its marker, less the time to reach the phone) the most overdue waiting note of a live race is, 0 if none is. Above 0 for minutes: conversion is falling behind race day.',
      registers: [registry],
      async collect() {
        await deadlines().then(
          ({ overdueSeconds }) => this.set(overdueSeconds),
          () => {},
        );
      },
    });
  }
}

export function spaceGauges(registry: Registry, space: WatchedSpace): void {
  new Gauge({
    name: 'milenotes_free_space_bytes',
    help: 'Bytes free under the folders notes are written to: data (DATA_DIR) and temp (TMPDIR). Below milenotes_ready_min_free_bytes, /readyz answers 503.',
    labelNames: ['folder'],
    registers: [registry],
    async collect() {
      for (const [folder, dir] of Object.entries(space.folders)) {
        // A folder that is not there (DATA_DIR with PostgreSQL and S3) is not written to: no figure.
        const free = await freeBytes(dir).catch(() => undefined);
        if (free !== undefined) this.set({ folder }, free);
      }
    },
  });
  new Gauge({
    name: 'milenotes_ready_min_free_bytes',
    help: 'READY_MIN_FREE_MB in bytes: the free space /readyz asks of each folder (0: not checked).',
    registers: [registry],
  }).set(space.minFreeBytes);
}
