/**
 * The browser replaced a push subscription: its service worker's pushsubscriptionchange
 * re-subscribes and tells every link it was subscribed on, here, under /api/r/:token/push/endpoint.
 * Only this phone's (the device cookie's, as for the subscribe PUT) row on this live link whose
 * endpoint is the old one takes the new endpoint; anything else changes nothing. Its language,
 * alerts and waiting pushes stay. The new endpoint and keys are checked as a subscribe's are.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import { MAX_ENDPOINT_LENGTH, PushParamsSchema, PushStateSchema, PushSubscribeSchema } from '../../contract/pushApi.js';
import { API_ROUTES } from '../../contract/paths.js';
import type { LinkView } from '../db/repository.js';
import type { Devices } from '../devices/index.js';
import { refusals } from '../http/contract.js';
import { refusal } from '../http/refusals.js';
import type { Push } from '../push/index.js';
import { NOT_ON_LINK, phoneOnLink } from './push.js';
import { pushRefusal } from '../push/refusals.js';

/** Two endpoints and the keys: well under a subscribe's limit. */
const MAX_BODY_BYTES = 4096;

export const PushEndpointChangeSchema = Type.Object(
  {
    oldEndpoint: Type.String({
      minLength: 1,
      maxLength: MAX_ENDPOINT_LENGTH,
      description: 'The endpoint the browser replaced, as this phone subscribed with it.',
    }),
    endpoint: PushSubscribeSchema.properties.endpoint,
    keys: PushSubscribeSchema.properties.keys,
  },
  { additionalProperties: false },
);

export interface PushChangeRouteOptions {
  push: Push;
  liveLink: (req: FastifyRequest) => LinkView;
  devices: Devices;
}

export const pushChangeRoutes: FastifyPluginAsyncTypebox<PushChangeRouteOptions> = async (app, { push, liveLink, devices }) => {
  // The recorder API hands bodies over raw (for audio); this route reads small JSON.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: MAX_BODY_BYTES }, app.getDefaultJsonParser('error', 'error'));

  app.put(
    API_ROUTES.pushEndpoint,
    {
      bodyLimit: MAX_BODY_BYTES,
      schema: {
        operationId: 'replacePushEndpoint',
        summary: 'The browser replaced this phone’s push subscription: the one on the link with `oldEndpoint` takes the new endpoint and keys',
        description:
          'Sent by the service worker on pushsubscriptionchange, from a phone on the link (as for subscribing). push_not_subscribed when this phone holds no subscription on the link with that endpoint; nothing changes then.',
        params: PushParamsSchema,
        body: PushEndpointChangeSchema,
        response: {
          200: PushStateSchema,
          ...refusals(
            refusal.link_not_found,
            refusal.rate_limited,
            pushRefusal.push_off,
            refusal.bad_request,
            refusal.too_large,
            pushRefusal.device_unknown,
            ...NOT_ON_LINK,
            pushRefusal.push_not_subscribed,
            pushRefusal.push_endpoint_refused,
            pushRefusal.invalid_subscription,
          ),
        },
      },
    },
    async (req) => {
      const link = liveLink(req);
      // As for subscribing: our cookie, on a phone on this link.
      return push.replaceEndpoint(await phoneOnLink(devices, push, req, link, req.params.token), link, req.params.token, req.body, Date.now());
    },
  );
};
