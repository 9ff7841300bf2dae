/**
 * Owns the Prometheus registry (prom-client): request latency by route pattern, notes received
 * and refused by reason, bytes received, held syncs and how fast a change answers them, the
 * conversion queue and the worker's outcomes, the pushes sent, failed and gone (server/push), the
 * converted notes asked for whose audio is gone from the store, the free space /readyz watches, plus the process defaults. Counted from Fastify hooks and
 * the background work's events (./metrics-events.ts), so routes know nothing of it; the gauges read at each scrape are ./metrics-gauges.ts. GET /metrics answers only when METRICS=on or from a METRICS_ALLOW address.
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
import { conversionEvents, pushEvents } from './metrics-events.js';
import { queueGauges, spaceGauges, type WatchedSpace } from './metrics-gauges.js';

export type { WatchedSpace } from './metrics-gauges.js';

export interface MetricsOptions {
  /** METRICS=on: anyone who can reach the server may read /metrics. */
  enabled: boolean;
  /** Socket addresses (never X-Forwarded-For) allowed to read /metrics when it is not enabled. */
  allow: string[];
}

export interface Metrics {
  registry: Registry;
  /** Hand to the conversion worker. */
  conversion: ConversionEvents;
  /** Hand to the push worker. */
  push: PushEvents;
  /** What the plugin counts requests with. */
  hooks: ReturnType<typeof hooksFor>;
}

export function createMetrics(
  queueDepth: () => Promise<number>,
  heldSyncRequests: () => number = () => 0,
  queueDeadlines?: () => Promise<QueueDeadlines>,
  space?: WatchedSpace,
): Metrics {
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
  queueGauges(registry, queueDepth, queueDeadlines);
  if (space) spaceGauges(registry, space);
  const syncWake = new Histogram({
    name: 'milenotes_sync_wake_seconds',
    help: 'From the change that brings a held sync request its answer (a note stored, converted or removed; with until=playable, converted or removed) to the answer sent: how long after the change a phone holding a sync request learns of it.',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
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

  return {
    registry,
    conversion: conversionEvents(registry, storageFaults),
    push: pushEvents(registry),
    hooks: hooksFor({ latency, received, refused, bytes, syncWake, storageFaults, audioGone }),
  };
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
export const metricsPlugin = fp<MetricsOptions & { metrics: Metrics; now?: () => number }>(async (app, opts) => {
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
