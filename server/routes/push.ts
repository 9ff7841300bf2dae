/**
 * The recorder's push routes under /api/r/:token/push, inside the recorder API, so the
 * live-link check and the per-address limit hold here too. The phone is the device cookie's
 * (server/devices), never a value in the body: a page can only turn on, off or ask for its own
 * phone. Only a phone on the link (a cookie this server issued, and the phone's row for that link,
 * made now if the link takes the phone) subscribes or asks for an alert: its subscriptions are then
 * bounded by the link's phones, and a phone that did so is one of the link's friends, never pushed
 * off it by newcomers. JSON bodies of a few hundred bytes; everything else is server/push's.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { markersFor } from '../../contract/markers.js';
import { AlertParamsSchema, PushParamsSchema, PushStateSchema, PushSubscribeSchema } from '../../contract/pushApi.js';
import { API_ROUTES } from '../../contract/paths.js';
import type { LinkView } from '../db/repository.js';
import type { Devices } from '../devices/index.js';
import { emptyAnswer, refusals } from '../http/contract.js';
import { refusal } from '../http/refusals.js';
import type { Push } from '../push/index.js';
import { pushRefusal } from '../push/refusals.js';
import type { Clock } from '../clock.js';

/** A subscription's JSON is about 500 bytes; room for whitespace, nothing like a note. */
const MAX_BODY_BYTES = 4096;

const ALWAYS = [refusal.link_not_found, refusal.rate_limited, pushRefusal.push_off] as const;

export interface PushRouteOptions {
  push: Push;
  liveLink: (req: FastifyRequest) => LinkView;
  /** The race's clock (../clock.ts): how far the runner is from a marker. */
  clock: Clock;
  /** The phone a request comes from, and whether it opened the link. */
  devices: Devices;
}

/**
 * The phone, on this link (our cookie, and its row for the link, made now if the link takes the
 * phone); refused otherwise before anything is stored: subscribing, asking for an alert, moving a
 * subscription (./push-change.ts). The one check of the phone on those paths: server/push takes
 * the phone it gives as checked. With push off, push_off answers first.
 */
export async function phoneOnLink(devices: Devices, push: Push, req: FastifyRequest, link: LinkView, token: string): Promise<string> {
  if (!push.enabled) throw pushRefusal.push_off();
  const deviceId = devices.idOf(req);
  if (deviceId === undefined) throw pushRefusal.device_unknown();
  const now = Date.now();
  const joined = await devices.join(deviceId, link, token, now);
  if (joined.kind === 'busy') throw pushRefusal.link_phones_busy(Math.max(1, Math.ceil((joined.until - now) / 1000)), link.runnerName);
  if (joined.kind === 'full') throw pushRefusal.link_phones_full(link.runnerName);
  return deviceId;
}

/** Refusals of a phone not on the link that the link cannot take now. */
export const NOT_ON_LINK = [pushRefusal.link_phones_busy, pushRefusal.link_phones_full] as const;

export const pushRoutes: FastifyPluginAsyncTypebox<PushRouteOptions> = async (app, { push, liveLink, clock, devices }) => {
  const deviceIdOf = (req: FastifyRequest) => devices.idOf(req);
  const phoneOf = (req: FastifyRequest, link: LinkView) => phoneOnLink(devices, push, req, link, (req.params as { token: string }).token);
  /** A phone that turned notifications on took part on the link: no newcomer pushes it off. */
  const tookPart = (deviceId: string | undefined, link: LinkView, at: number) => (deviceId ? devices.tookPart(deviceId, link.linkId, at) : undefined);

  // The recorder API hands bodies over raw (for audio); these routes read small JSON.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: MAX_BODY_BYTES }, app.getDefaultJsonParser('error', 'error'));

  app.get(
    API_ROUTES.push,
    {
      schema: {
        operationId: 'getPushState',
        summary: 'This phone’s notifications on the link: the key to subscribe with, whether it is subscribed, its marker alerts',
        params: PushParamsSchema,
        response: { 200: PushStateSchema, ...refusals(...ALWAYS) },
      },
    },
    (req) => push.state(deviceIdOf(req), liveLink(req)),
  );

  app.put(
    API_ROUTES.push,
    {
      bodyLimit: MAX_BODY_BYTES,
      schema: {
        operationId: 'subscribePush',
        summary:
          'Turn notifications on for this phone on the link (its browser’s PushSubscription); `heard`: be told when the runner hears the notes sent from this phone',
        description:
          'Only a phone on the link subscribes: without a cookie this server issued (GET /api/r/:token gives it), device_unknown. ' +
          'A phone not on the link yet comes on now, unless the link took its new phones of the hour (link_phones_busy, with Retry-After) ' +
          'or every phone on it took part there (link_phones_full); nothing is stored then. ' +
          'The endpoint must be HTTPS to a push service the server lists (PUSH_HOSTS), else push_endpoint_refused and nothing is called. Sending again replaces this phone’s subscription.',
        params: PushParamsSchema,
        body: PushSubscribeSchema,
        response: {
          200: PushStateSchema,
          ...refusals(
            ...ALWAYS,
            refusal.bad_request,
            refusal.too_large,
            pushRefusal.device_unknown,
            ...NOT_ON_LINK,
            pushRefusal.push_endpoint_refused,
            pushRefusal.invalid_subscription,
            pushRefusal.push_link_full,
            pushRefusal.push_phone_full,
          ),
        },
      },
    },
    async (req) => {
      const link = liveLink(req);
      const phone = await phoneOf(req, link);
      const now = Date.now();
      const state = await push.subscribe(phone, link, req.params.token, req.body, now);
      await tookPart(phone, link, now);
      return state;
    },
  );

  app.delete(
    API_ROUTES.push,
    {
      schema: {
        operationId: 'unsubscribePush',
        summary: 'Turn this phone’s notifications off on the link: its subscription, alerts and pushes not yet sent go',
        params: PushParamsSchema,
        response: { 204: emptyAnswer('Off, now or before.'), ...refusals(...ALWAYS, pushRefusal.device_unknown) },
      },
    },
    async (req, reply) => {
      await push.unsubscribe(deviceIdOf(req), liveLink(req));
      return reply.code(204).send(null);
    },
  );

  app.put(
    API_ROUTES.pushAlert,
    {
      schema: {
        operationId: 'addMarkerAlert',
        summary: 'Be told once when the runner is about 10 minutes from this marker (while they share progress in a live race)',
        params: AlertParamsSchema,
        response: {
          200: PushStateSchema,
          ...refusals(
            ...ALWAYS,
            refusal.unknown_marker,
            pushRefusal.device_unknown,
            ...NOT_ON_LINK,
            pushRefusal.push_not_subscribed,
            pushRefusal.progress_not_shared,
            pushRefusal.marker_passed,
            pushRefusal.marker_too_near,
          ),
        },
      },
    },
    async (req) => {
      const link = liveLink(req);
      const { marker } = req.params;
      if (!markersFor(link.race.units).some((m) => m.id === marker)) throw refusal.unknown_marker({ name: link.race.name, marker });
      // An alert needs this phone's subscription, which made it one of the link's friends already.
      return push.askAlert(await phoneOf(req, link), link, marker, clock.now());
    },
  );

  app.delete(
    API_ROUTES.pushAlert,
    {
      schema: {
        operationId: 'removeMarkerAlert',
        summary: 'No longer be told about this marker',
        params: AlertParamsSchema,
        response: { 204: emptyAnswer('Removed, now or before.'), ...refusals(...ALWAYS, pushRefusal.device_unknown) },
      },
    },
    async (req, reply) => {
      await push.dropAlert(deviceIdOf(req), liveLink(req), req.params.marker);
      return reply.code(204).send(null);
    },
  );
};
