/** Push in server tests: the stand-in push service trusted by this process, a phone's device cookie, and its subscription. */
import tls from 'node:tls';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { DEVICE_COOKIE, LOCAL_DEVICE_COOKIE } from '../../../server/devices/cookie.js';
import type { PushSubscribe } from '../../../contract/pushApi.js';
import type { PushServiceStandIn, StandInSubscription } from '../../../stand-ins/pushService.js';

/** The environment of a server that sends to the stand-in (and nowhere else). */
export const pushEnv = (service: PushServiceStandIn): NodeJS.ProcessEnv => ({ PUSH_HOSTS: service.host, VAPID_SUBJECT: 'mailto:ops@milenotes.test' });

/**
 * This process trusts the stand-in's certificate from now on, as a server process started with
 * NODE_EXTRA_CA_CERTS does; returns the undoing.
 */
export function trustPushService(service: PushServiceStandIn): () => void {
  const before = tls.getCACertificates('default');
  tls.setDefaultCACertificates([...before, service.caPem]);
  return () => tls.setDefaultCACertificates(before);
}

/** The device cookie a response sets, by either name (an https PUBLIC_URL's, or plain HTTP's to this machine), as a `cookie` header; undefined without one. */
export function deviceCookieHeader(setCookie: string | string[] | undefined): string | undefined {
  const line = [setCookie ?? []].flat().find((c) => c.startsWith(`${DEVICE_COOKIE}=`) || c.startsWith(`${LOCAL_DEVICE_COOKIE}=`));
  return line?.split(';')[0];
}

/** A phone opening the link: the `cookie` header its later requests carry. */
export async function phoneOpens(app: FastifyInstance, token: string, cookie?: string): Promise<string> {
  const res = await app.inject({ url: `/api/r/${token}`, headers: cookie ? { cookie } : {} });
  expect(res.statusCode).toBe(200);
  return deviceCookieHeader(res.headers['set-cookie'])!;
}

/** PUT /api/r/:token/push from a phone, with its browser's subscription. */
export function subscribe(app: FastifyInstance, token: string, cookie: string | undefined, sub: StandInSubscription, extra: Partial<PushSubscribe> = {}) {
  return app.inject({
    method: 'PUT',
    url: `/api/r/${token}/push`,
    headers: cookie ? { cookie } : {},
    payload: { ...sub, lang: 'en', heard: true, ...extra },
  });
}
