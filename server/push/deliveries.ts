/**
 * The push worker of one server: it fires the marker alerts that are due, then sends the queued
 * pushes, each claimed with a lease (server/db/push-queue-store.ts) so one server sends it. What the
 * push service answered decides: sent, the subscription forgotten (404/410), tried again later
 * (429/5xx/no answer, ./retry.ts), or given up. It goes round on the background loop
 * (../background/loop.ts): it polls, and is nudged when this server queues a push, so a played note
 * is told at once and never waits on the report that played it.
 */
import { availableParallelism } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import { createLoop } from '../background/loop.js';
import type { ClaimedPush, Repository } from '../db/repository.js';
import type { TokenSeal } from '../devices/sealed.js';
import type { MarkerAlerts } from './alerts.js';
import { messageOf, noticeOf } from './notice.js';
import { nextAttemptAt } from './retry.js';
import type { PushSender } from './send.js';

/**
 * Pushes in flight at once on one server. A push is about a millisecond of CPU (encryption and
 * signature) and a round trip of a few hundred ms to the push service, so a core keeps dozens in
 * flight (the push bench); more would only hold sockets open.
 */
export const PUSH_CONCURRENCY = 32 * Math.max(1, Math.min(8, availableParallelism()));

/** What the metrics count (server/plugins/metrics.ts). */
export interface PushEvents {
  sent(): void;
  /** refused_host, rejected, gave_up or expired. */
  failed(reason: string): void;
  /** The push service said the subscription is gone. */
  gone(): void;
}

export interface PushWorkerOptions {
  repo: Repository;
  send: PushSender;
  alerts: MarkerAlerts;
  seal: TokenSeal;
  /** PUBLIC_URL's origin: where a push's tap goes. */
  origin: string;
  log: FastifyBaseLogger;
  events: PushEvents;
  pollMs: number;
  /** Longer than a send's time limit, so a live send keeps its claim. */
  leaseMs: number;
  /** Pushes in flight at once. */
  concurrency: number;
  now?: () => number;
  /** The clock marker alerts are due by: the server's race clock (../clock.ts); `now` otherwise. */
  raceNow?: () => number;
}

export interface PushWorker {
  /** Starts polling (the app does, with the rest of its background work). */
  start(): void;
  /** Look now (this server queued a push or moved an alert's time). */
  nudge(): void;
  /** Stops polling and waits for the pushes in flight. */
  stop(): Promise<void>;
}

/** A push worker already going (the bench). */
export function startPushWorker(opts: PushWorkerOptions): PushWorker {
  const worker = createPushWorker(opts);
  worker.start();
  return worker;
}

export function createPushWorker(opts: PushWorkerOptions): PushWorker {
  const { repo, log, events } = opts;
  const now = opts.now ?? Date.now;
  let stopped = false;

  async function deliver(push: ClaimedPush): Promise<void> {
    const at = now();
    if (push.linkRevoked || at > push.expiresAt) {
      await repo.pushQueue.finish(push);
      if (!push.linkRevoked) events.failed('expired');
      return;
    }
    const outcome = await opts.send(push.subscription, messageOf(push, noticeOf(push, opts.seal, opts.origin)));
    switch (outcome.kind) {
      case 'sent':
        await repo.pushQueue.finish(push);
        await repo.push.tookPush(push.subscription.id, now());
        return events.sent();
      case 'gone':
        // Every link's subscription on that endpoint goes, and their pushes with them.
        await repo.push.forgetEndpoint(push.subscription.endpoint);
        return events.gone();
      case 'refused':
        log.warn({ problem: outcome.problem }, 'a push endpoint is not on PUSH_HOSTS; the push is dropped unsent');
        await repo.pushQueue.finish(push);
        return events.failed('refused_host');
      case 'rejected':
        log.warn({ status: outcome.status }, 'the push service refused a push; it is dropped');
        await repo.pushQueue.finish(push);
        return events.failed('rejected');
      case 'retry': {
        const next = nextAttemptAt(push.attempts, outcome.retryAfterMs, now(), push.expiresAt);
        if (next !== undefined) return repo.pushQueue.retryAt(push, next);
        log.warn({ status: outcome.status, attempts: push.attempts }, 'a push could not be delivered; given up');
        await repo.pushQueue.finish(push);
        return events.failed('gave_up');
      }
    }
  }

  async function sendQueued(): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    for (;;) {
      // Claimed in batches of what the free places take: one transaction, not one a push.
      while (inFlight.size < opts.concurrency && !stopped) {
        const pushes = await repo.pushQueue.claimMany(now(), opts.leaseMs, opts.concurrency - inFlight.size);
        for (const push of pushes) {
          const sending: Promise<void> = deliver(push)
            // Its lease runs out and the push is tried again (by any server): nothing is lost.
            .catch((err: unknown) => log.error({ err }, 'a push could not be handled'))
            .finally(() => inFlight.delete(sending));
          inFlight.add(sending);
        }
        if (pushes.length === 0) break;
      }
      if (inFlight.size === 0) return;
      await Promise.race(inFlight);
    }
  }

  const loop = createLoop({
    name: 'push',
    pollMs: opts.pollMs,
    log,
    async round() {
      try {
        await opts.alerts.fireDue((opts.raceNow ?? now)(), now());
        await sendQueued();
      } catch (err) {
        log.error({ err }, 'the push worker could not read its queue; it tries again at the next poll');
      }
      return 'idle';
    },
  });
  return {
    start: loop.start,
    nudge: loop.nudge,
    async stop() {
      stopped = true;
      await loop.stop();
    },
  };
}
