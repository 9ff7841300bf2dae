/**
 * Owns the Prometheus registry (prom-client): request latency by route pattern, notes received
 * and refused by reason, bytes received, held syncs and how fast a change answers them, the
 * conversion queue and the worker's outcomes, the pushes sent, failed and gone (server/push), the
 * converted notes asked for whose audio is gone from the store, the free space /readyz watches, plus the process defaults. Counted from Fastify hooks and
 * the worker's events, so routes know nothing of it. GET /metrics answers only when METRICS=on or from a METRICS_ALLOW address.
 */
import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { isNoteUpload } from '../http/note-upload-mark.js';
import { audioGoneMarkOf } from '../runner/audio.js';
import { storageFaultMarkOf } from '../http/storage-faults.js';
import { secondsSinceWoken } from '../sync/woken-mark.js';
import type { QueueDeadlines } from '../db/job-store.js';
import type { PushEvents } from '../push/index.js';
import type { ConversionEvents } from '../conversion/worker.js';
import { freeBytes } from '../ops/free-space.js';

export interface MetricsOptions {
  /** METRICS=on: anyone who can reach the server may read /metrics. */
  enabled: boolean;
  /** Socket addresses (never X-Forwarded-For) allowed to read /metrics when it is not enabled. */
  allow: string[];
}

/** The folders /readyz keeps free space in (server/ops/free-space.ts), by a short name, and the least each must keep. */
export interface WatchedSpace {
  folders: Record<string, string>;
  minFreeBytes: number;
}

export interface Metrics {
  registry: Registry;
  /** Hand to the conversion worker. */
  conversion: ConversionEvents;
  /** Hand to the push worker. */
  push: PushEvents;
}

export function createMetrics(
  queueDepth: () => Promise<number>,
  heldSyncRequests: () => number = () => 0,
  queueDeadlines?: () => Promise<QueueDeadlines>,
  space?: WatchedSpace,
): Metrics & { hooks: ReturnType<typeof hooksFor> } {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const latency = new Histogram({
    name: 'milenotes_http_request_duration_seconds',
    help: 'Time to answer a request, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const received = new Counter({
    name: 'milenotes_notes_received_total',
    help: 'Note uploads answered 201: new notes, and retries of notes already stored (answered with the first receipt).',
    labelNames: ['kind'],
    registers: [registry],
  });
  const refused = new Counter({
    name: 'milenotes_notes_refused_total',
    help: 'Note uploads refused, by the error code in the answer.',
    labelNames: ['reason'],
    registers: [registry],
  });
  const bytes = new Counter({
    name: 'milenotes_note_bytes_received_total',
    help: 'Audio bytes of new notes stored.',
    registers: [registry],
  });
  new Gauge({
    name: 'milenotes_sync_held_requests',
    help: "Sync requests of runners' apps this process holds open now (server/sync).",
    registers: [registry],
    collect() {
      this.set(heldSyncRequests());
    },
  });
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
  if (space) {
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
  const syncWake = new Histogram({
    name: 'milenotes_sync_wake_seconds',
    help: 'From the change that brings a held sync request its answer (a note stored, converted or removed; with until=playable, converted or removed) to the answer sent: how long after the change a phone holding a sync request learns of it.',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const conversions = new Histogram({
    name: 'milenotes_conversion_duration_seconds',
    help: 'Time to convert one note to M4A and store it, in this process.',
    buckets: [0.25, 0.5, 1, 2, 5, 10, 30, 60, 120],
    registers: [registry],
  });
  const conversionFailures = new Counter({
    name: 'milenotes_conversion_failures_total',
    help: 'Failed conversion attempts: unplayable (the audio), error (retried), gave_up (last attempt).',
    labelNames: ['kind'],
    registers: [registry],
  });

  const storageFaults = new Counter({
    name: 'milenotes_storage_faults_total',
    help: 'Storage faults met (server/storage/faults.ts), by kind (database_unavailable, store_unavailable, disk_full) and during what: a request (answered 503) or a conversion (tried again later).',
    labelNames: ['kind', 'during'],
    registers: [registry],
  });

  const audioGone = new Counter({
    name: 'milenotes_audio_gone_total',
    help: 'Requests for a converted note whose audio is not in the store (answered 404 audio_gone): a file deleted under its note.',
    registers: [registry],
  });

  const pushSent = new Counter({
    name: 'milenotes_push_sent_total',
    help: 'Pushes a push service accepted (a heard note, a marker alert).',
    registers: [registry],
  });
  const pushFailed = new Counter({
    name: 'milenotes_push_failed_total',
    help: 'Pushes dropped unsent: refused_host (not on PUSH_HOSTS), rejected (the service refused it), gave_up (retries spent), expired (stale before it went).',
    labelNames: ['reason'],
    registers: [registry],
  });
  const pushGone = new Counter({
    name: 'milenotes_push_gone_total',
    help: 'Subscriptions the push service said are gone (404/410), forgotten.',
    registers: [registry],
  });
  const push: PushEvents = {
    sent: () => pushSent.inc(),
    failed: (reason) => pushFailed.inc({ reason }),
    gone: () => pushGone.inc(),
  };

  const conversion: ConversionEvents = {
    converted: (seconds) => conversions.observe(seconds),
    failed: (kind) => conversionFailures.inc({ kind }),
    storageFault: (kind) => storageFaults.inc({ kind, during: 'conversion' }),
  };
  return { registry, conversion, push, hooks: hooksFor({ latency, received, refused, bytes, syncWake, storageFaults, audioGone }) };
}

function hooksFor(m: {
  latency: Histogram;
  received: Counter;
  refused: Counter;
  bytes: Counter;
  syncWake: Histogram;
  storageFaults: Counter;
  audioGone: Counter;
}) {
  return {
    onResponse(req: FastifyRequest, reply: FastifyReply) {
      const route = req.routeOptions.url ?? 'unmatched';
      m.latency.observe({ method: req.method, route, status_code: String(reply.statusCode) }, reply.elapsedTime / 1000);
      const woken = secondsSinceWoken(req);
      if (woken !== undefined) m.syncWake.observe(woken);
      const fault = storageFaultMarkOf(req);
      if (fault) m.storageFaults.inc({ kind: fault, during: 'request' });
      if (audioGoneMarkOf(req)) m.audioGone.inc();
    },
    /** The answer's body says what happened to a note: a receipt, or an error code. */
    onNoteAnswer(status: number, payload: unknown, startedAt: number) {
      if (typeof payload !== 'string') return;
      let body: { bytes?: unknown; receivedAt?: unknown; error?: unknown };
      try {
        body = JSON.parse(payload) as typeof body;
      } catch {
        return;
      }
      if (status === 201) {
        // A retry gets the first receipt back, stamped before this request began.
        const isNew = typeof body.receivedAt === 'string' && Date.parse(body.receivedAt) >= startedAt - 1;
        m.received.inc({ kind: isNew ? 'new' : 'retry' });
        if (isNew && typeof body.bytes === 'number') m.bytes.inc(body.bytes);
      } else if (status >= 400) {
        m.refused.inc({ reason: typeof body.error === 'string' ? body.error.slice(0, 40) : String(status) });
      }
    },
  };
}

const normalise = (address: string | undefined) => (address ?? '').replace(/^::ffff:/, '');

/** Installs the counting hooks on every route and serves GET /metrics. */
/** `now`: the server's clock (server/clock.ts), which stamps a note's receipt: a new one is told from a retry on it. */
export const metricsPlugin = fp<MetricsOptions & { metrics: ReturnType<typeof createMetrics>; now?: () => number }>(async (app, opts) => {
  const { metrics } = opts;
  const now = opts.now ?? Date.now;
  const allowed = new Set(opts.allow.map(normalise));
  const startedAt = new WeakMap<FastifyRequest, number>();

  app.addHook('onRequest', async (req) => {
    // Whole PUTs and appends alike: the answer that completes a note counts it, whichever it was.
    if (isNoteUpload(req)) startedAt.set(req, now());
  });
  app.addHook('onSend', async (req, reply, payload) => {
    const started = startedAt.get(req);
    if (started !== undefined) metrics.hooks.onNoteAnswer(reply.statusCode, payload, started);
    return payload;
  });
  app.addHook('onResponse', async (req, reply) => metrics.hooks.onResponse(req, reply));

  app.get('/metrics', { logLevel: 'warn' }, async (req, reply) => {
    // The socket's address, not req.ip: X-Forwarded-For is written by the client.
    if (!opts.enabled && !allowed.has(normalise(req.socket.remoteAddress))) return reply.callNotFound();
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
});
