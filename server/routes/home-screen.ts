/**
 * The home screen's list under /api/device: the runners this phone records for, found
 * by the device cookie alone (server/devices), and taking one off. On iPhone the home-screen app
 * starts with the site's cookies and nothing else, so this list is how it finds its recorders.
 * The cookie is a bearer credential for the links it lists: a live link's token is given back,
 * a revoked one's never; only a cookie this server issued names a phone. Limited per
 * client (an IPv6 client by its /64) and phone, as the recorder's routes are per link.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Clock } from '../clock.js';
import { HomeScreenLinksSchema, LinkIdParamsSchema, type HomeScreenLink } from '../../contract/homeScreenApi.js';
import { API_ROUTES, recorderPath } from '../../contract/paths.js';
import type { Devices, PhoneLink } from '../devices/index.js';
import { emptyAnswer, refusals } from '../http/contract.js';
import { deviceLinkNotFound } from '../http/problem.js';
import { refusal } from '../http/refusals.js';
import { addressKey } from '../http/client-key.js';
import { publicRace } from '../races/public-race.js';

export interface HomeScreenApiOptions {
  devices: Devices;
  rateLimitPerMinute: number;
  /** Where each race stands (../clock.ts). */
  clock: Clock;
}

/** OpenAPI security of these routes: the device cookie, or none (the list is then empty). */
export const DEVICE_COOKIE_SECURITY: Array<Record<string, string[]>> = [{ deviceCookie: [] }, {}];

/**
 * A phone's link as the list gives it, or undefined for a live link whose sealed token no longer
 * opens (a new SESSION_SECRET): the phone gets it back the next time it opens the link.
 */
function listed(link: PhoneLink, now: number): HomeScreenLink | undefined {
  const { race } = link;
  const entry: HomeScreenLink = {
    linkId: link.linkId,
    runner: { displayName: link.runnerName },
    race: publicRace(race, now),
    revoked: link.revoked,
    openedAt: new Date(link.openedAt).toISOString(),
  };
  if (link.revoked) return entry;
  if (link.token === undefined) return undefined;
  return { ...entry, token: link.token, path: recorderPath(link.token) };
}

export const homeScreenApi: FastifyPluginAsyncTypebox<HomeScreenApiOptions> = async (app, { devices, rateLimitPerMinute, clock }) => {
  await app.register(rateLimit, {
    max: rateLimitPerMinute,
    timeWindow: 60_000,
    // Per client (an IPv6 client by its /64) and phone: a venue's friends behind one carrier address
    // each have their own budget; only a cookie this server issued names a phone.
    keyGenerator: (req) => `device|${addressKey(req.ip)}|${devices.idOf(req) ?? ''}`,
    errorResponseBuilder: (_req, context) => refusal.rate_limited(Math.max(1, Math.ceil(context.ttl / 1000))),
  });

  app.get(
    API_ROUTES.deviceLinks,
    {
      schema: {
        operationId: 'listHomeScreenLinks',
        summary: 'The home screen’s list: the recorder links opened on this phone (by its device cookie), each live one with its token',
        security: DEVICE_COOKIE_SECURITY,
        response: { 200: HomeScreenLinksSchema, ...refusals(refusal.rate_limited) },
      },
    },
    async (req, reply) => {
      const deviceId = await devices.renew(req, reply, Date.now());
      if (deviceId === undefined) return { links: [] };
      const now = clock.now();
      const links = (await devices.linksOf(deviceId)).map((link) => listed(link, now)).filter((link) => link !== undefined);
      return { links };
    },
  );

  app.delete(
    API_ROUTES.deviceLink,
    {
      schema: {
        operationId: 'forgetHomeScreenLink',
        summary: 'Take a runner off this phone’s list (the link itself and its notes stay); opening the link again puts it back',
        security: DEVICE_COOKIE_SECURITY,
        params: LinkIdParamsSchema,
        response: { 204: emptyAnswer('Off the list.'), ...refusals(deviceLinkNotFound, refusal.rate_limited) },
      },
    },
    async (req, reply) => {
      const deviceId = devices.idOf(req);
      if (deviceId === undefined || !(await devices.forget(deviceId, req.params.linkId))) throw deviceLinkNotFound();
      return reply.code(204).send(null);
    },
  );
};
