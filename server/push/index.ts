/**
 * Web Push as the routes see it: the public key the recorder subscribes with, this phone's
 * subscription per link and its marker alerts, the pushes a first play queues, and the worker that
 * sends them, and the loops that send and sweep (the app starts and stops them with the rest of its
 * background work). Built once per server (server/app.ts); with PUSH=off, or keys it cannot read, every
 * route answers push_off and nothing is queued.
 */
import { createECDH } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Loop } from '../background/loop.js';
import { PUSH_LEASE_MS, PUSH_POLL_MS, PUSH_SWEEP_MS } from '../config/background.js';
import type { PushState, PushSubscribe } from '../../contract/pushApi.js';
import type { LinkView, PushTimes, Repository } from '../db/repository.js';
import { createTokenSeal } from '../devices/sealed.js';
import { createMarkerAlerts } from './alerts.js';
import type { PushConfig, VapidKeys } from '../config/push.js';
import { createPushWorker, PUSH_CONCURRENCY, type PushEvents, type PushWorker } from './deliveries.js';
import { checkEndpoint } from './hosts.js';
import { vapidKeysOf } from './keys.js';
import { PUSH_TTL_SECONDS } from './notice.js';
import { pushRefusal } from './refusals.js';
import { createPushSender } from './send.js';
import { createPushSweeper } from './sweep.js';

export type { PushEvents } from './deliveries.js';

/** A browser's replaced subscription: the endpoint it had, and the new one with its keys (routes/push-change.ts). */
export type PushEndpointChange = Pick<PushSubscribe, 'endpoint' | 'keys'> & { oldEndpoint: string };

export interface Push {
  readonly enabled: boolean;
  /** This phone's subscription on the link as the recorder shows it. */
  state(deviceId: string | undefined, link: LinkView): Promise<PushState>;
  /** Saves this phone's subscription on the link (`token`: the link's, sealed for the notice's tap); `deviceId`: a phone on the link (routes/push.ts checked it). */
  subscribe(deviceId: string, link: LinkView, token: string, body: PushSubscribe, now: number): Promise<PushState>;
  unsubscribe(deviceId: string | undefined, link: LinkView): Promise<void>;
  /**
   * The browser replaced this phone's subscription (pushsubscriptionchange): the row on the
   * link whose endpoint is `oldEndpoint` takes the new one, keeping its language, alerts and queue.
   */
  replaceEndpoint(deviceId: string, link: LinkView, token: string, body: PushEndpointChange, now: number): Promise<PushState>;
  /** Asks for an alert on this phone's subscription; `deviceId`: a phone on the link (routes/push.ts checked it). */
  askAlert(deviceId: string, link: LinkView, marker: string, now: number): Promise<PushState>;
  dropAlert(deviceId: string | undefined, link: LinkView, marker: string): Promise<void>;
  /**
   * When a note's first play at `now` queues its sender's pushes, and how long they are worth
   * sending (for repo.plays.record); undefined when push is off: nothing is queued.
   */
  heardPushes(now: number): PushTimes | undefined;
  /** After the first play committed: send now rather than at the next poll. */
  played(): void;
  /** After an accepted position batch; never throws, never holds the batch up. */
  positionsMoved(entryId: string, now: number): void;
  /** The loops that send the queue and sweep the rows past their life, by name, in the order they start; none when push is off. */
  loops: ReadonlyArray<{ name: string; loop: Pick<Loop, 'start' | 'stop'> }>;
}

export interface PushDeps {
  repo: Repository;
  config: PushConfig;
  sessionSecret: Uint8Array;
  log: FastifyBaseLogger;
  events: PushEvents;
  /** How often the worker looks for due alerts and pushes another server queued (default PUSH_POLL_MS, server/config/background.ts). */
  pollMs?: number;
  /** The race clock marker alerts are judged on (../clock.ts); the real clock by default. */
  raceNow?: () => number;
  /** How often alerts of races over and idle subscriptions are swept (./sweep.ts; default PUSH_SWEEP_MS). */
  sweepMs?: number;
}

/** Phones wait about this long for their push service; past it the push is tried again later. */
const SEND_TIMEOUT_MS = 10_000;

/** Push off: every route answers push_off, nothing is queued. */
const OFF: Push = {
  enabled: false,
  state: () => Promise.reject(pushRefusal.push_off()),
  subscribe: () => Promise.reject(pushRefusal.push_off()),
  unsubscribe: () => Promise.reject(pushRefusal.push_off()),
  replaceEndpoint: () => Promise.reject(pushRefusal.push_off()),
  askAlert: () => Promise.reject(pushRefusal.push_off()),
  dropAlert: () => Promise.reject(pushRefusal.push_off()),
  heardPushes: () => undefined,
  played: () => undefined,
  positionsMoved: () => undefined,
  loops: [],
};

/** The browser's keys make a key agreement: p256dh a point on P-256, auth 16 bytes. */
function keysUsable(p256dh: string, auth: string): boolean {
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    ecdh.computeSecret(Buffer.from(p256dh, 'base64url'));
    return Buffer.from(auth, 'base64url').length === 16;
  } catch {
    return false;
  }
}

export async function createPush(deps: PushDeps): Promise<Push> {
  const { repo, config, log } = deps;
  if (!config.enabled) return OFF;
  let keys: VapidKeys;
  try {
    keys = await vapidKeysOf(repo.push, config.vapidKeys, deps.sessionSecret, Date.now());
  } catch (err) {
    log.error({ err }, 'push is off: its VAPID keys could not be read');
    return OFF;
  }
  const seal = createTokenSeal(deps.sessionSecret);
  const alerts = createMarkerAlerts(repo);
  const worker: PushWorker = createPushWorker({
    repo,
    alerts,
    seal,
    log,
    events: deps.events,
    origin: config.origin,
    send: createPushSender({ hosts: config.hosts, keys, subject: config.subject, timeoutMs: SEND_TIMEOUT_MS }),
    pollMs: deps.pollMs ?? PUSH_POLL_MS,
    leaseMs: PUSH_LEASE_MS,
    concurrency: PUSH_CONCURRENCY,
    raceNow: deps.raceNow,
  });
  const sweeper = createPushSweeper({ repo, log, intervalMs: deps.sweepMs ?? PUSH_SWEEP_MS, raceNow: deps.raceNow });

  const phone = (deviceId: string | undefined) => {
    if (!deviceId) throw pushRefusal.device_unknown();
    return deviceId;
  };
  async function state(deviceId: string | undefined, link: LinkView): Promise<PushState> {
    const sub = deviceId ? await repo.push.subscription(deviceId, link.linkId) : undefined;
    return {
      publicKey: keys.publicKey,
      subscribed: sub !== undefined,
      heard: sub?.heard ?? false,
      ...(sub && { lang: sub.lang as PushState['lang'] }),
      alerts: (sub?.alerts ?? []).map((a) => ({ marker: a.marker, sent: a.firedAt !== null })),
    };
  }

  const api: Push = {
    enabled: true,
    state,
    async subscribe(deviceId, link, token, body, now) {
      if ('problem' in checkEndpoint(config.hosts, body.endpoint)) throw pushRefusal.push_endpoint_refused();
      const p256dh = body.keys.p256dh.replace(/=+$/, '');
      const auth = body.keys.auth.replace(/=+$/, '');
      if (!keysUsable(p256dh, auth)) throw pushRefusal.invalid_subscription();
      const saved = await repo.push.subscribe(
        {
          deviceId,
          linkId: link.linkId,
          endpoint: body.endpoint,
          p256dh,
          auth,
          lang: body.lang,
          heard: body.heard,
          sealedToken: seal.seal(link.linkId, token),
          at: now,
        },
        config.limits,
      );
      if (saved === 'link_full') throw pushRefusal.push_link_full();
      if (saved === 'phone_full') throw pushRefusal.push_phone_full();
      return state(deviceId, link);
    },
    async replaceEndpoint(deviceId, link, token, body, now) {
      const sub = await repo.push.subscription(deviceId, link.linkId);
      if (!sub || sub.endpoint !== body.oldEndpoint) throw pushRefusal.push_not_subscribed();
      return api.subscribe(deviceId, link, token, { endpoint: body.endpoint, keys: body.keys, lang: sub.lang as PushSubscribe['lang'], heard: sub.heard }, now);
    },
    async unsubscribe(deviceId, link) {
      await repo.push.unsubscribe(phone(deviceId), link.linkId);
    },
    async askAlert(deviceId, link, marker, now) {
      const sub = await repo.push.subscription(deviceId, link.linkId);
      if (!sub) throw pushRefusal.push_not_subscribed();
      await alerts.ask(sub.id, link, marker, now);
      return state(deviceId, link);
    },
    async dropAlert(deviceId, link, marker) {
      const sub = await repo.push.subscription(phone(deviceId), link.linkId);
      if (sub) await repo.push.removeAlert(sub.id, marker);
    },
    heardPushes: (now) => ({ now, expiresAt: now + PUSH_TTL_SECONDS.heard * 1000 }),
    played: () => worker.nudge(),
    positionsMoved(entryId, now) {
      alerts.positionsMoved(entryId, now).then(
        () => worker.nudge(),
        (err: unknown) => log.warn({ err }, 'marker alerts could not follow a position batch; the next batch tries again'),
      );
    },
    loops: [
      { name: 'push', loop: worker },
      { name: 'push sweep', loop: sweeper },
    ],
  };
  return api;
}
