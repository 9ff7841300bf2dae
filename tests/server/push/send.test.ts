/**
 * One push on the wire (server/push/send.ts) to the loopback stand-in of a push service, which checks
 * the VAPID signature and decrypts the body as a browser would: what it reads is what was sent, and
 * its answer becomes the sender's outcome. An endpoint PUSH_HOSTS does not list is never contacted.
 */
import tls from 'node:tls';
import webpush from 'web-push';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parsePushHosts } from '../../../server/config/push-hosts.js';
import { createPushSender, type PushMessage, type PushSender } from '../../../server/push/send.js';
import { startPushService, type PushServiceStandIn } from '../../../stand-ins/pushService.js';

const MESSAGE: PushMessage = {
  payload: JSON.stringify({ v: 1, kind: 'heard', runner: 'Alex', marker: 'mi-20' }),
  ttlSeconds: 600,
  urgency: 'high',
  topic: 'abc_DEF-123',
};

describe('sending a push', () => {
  let service: PushServiceStandIn;
  let send: PushSender;
  const keys = webpush.generateVAPIDKeys();
  beforeAll(async () => {
    service = await startPushService();
    // This process trusts the stand-in's certificate, as a server started with NODE_EXTRA_CA_CERTS does.
    tls.setDefaultCACertificates([...tls.getCACertificates('default'), service.caPem]);
    send = createPushSender({ hosts: parsePushHosts(service.host), keys, subject: 'mailto:ops@milenotes.test', timeoutMs: 5_000 });
  });
  afterAll(async () => {
    tls.setDefaultCACertificates(tls.getCACertificates('bundled'));
    await service?.close();
  });

  it("should sign with VAPID for the service's origin and encrypt so only the subscribed browser reads it", async () => {
    const sub = service.subscribe();
    expect(await send({ endpoint: sub.endpoint, ...sub.keys }, MESSAGE)).toEqual({ kind: 'sent' });
    const [got] = service.received();
    expect(got).toMatchObject({ endpoint: sub.endpoint, text: MESSAGE.payload, ttl: 600, urgency: 'high', topic: 'abc_DEF-123' });
    expect(got!.claims).toMatchObject({ aud: service.origin, sub: 'mailto:ops@milenotes.test' });
    expect(got!.claims.exp! - Date.now() / 1000).toBeLessThanOrEqual(24 * 3600);
    expect(service.refusals()).toEqual([]);
  });

  it('should sign once for many pushes to one service, and again an hour later', async () => {
    let clock = Date.now();
    const timed = createPushSender({ hosts: parsePushHosts(service.host), keys, subject: 'mailto:ops@milenotes.test', timeoutMs: 5_000, now: () => clock });
    const sub = service.subscribe();
    const target = { endpoint: sub.endpoint, ...sub.keys };
    const signs = vi.spyOn(webpush, 'getVapidHeaders');
    try {
      expect(await timed(target, MESSAGE)).toEqual({ kind: 'sent' });
      expect(await timed(target, MESSAGE)).toEqual({ kind: 'sent' });
      expect(signs).toHaveBeenCalledTimes(1);
      clock += 3600_000 + 1000;
      expect(await timed(target, MESSAGE)).toEqual({ kind: 'sent' });
      expect(signs).toHaveBeenCalledTimes(2);
    } finally {
      signs.mockRestore();
    }
    expect(service.refusals()).toEqual([]);
  });

  it('should say gone for 404 and 410, retry for 429 (with its Retry-After) and 5xx, and rejected for other refusals', async () => {
    const sub = service.subscribe();
    const target = { endpoint: sub.endpoint, ...sub.keys };
    service.script(sub.endpoint, { status: 410 }, { status: 404 }, { status: 429, retryAfter: '7' }, { status: 503 }, { status: 413 });
    expect(await send(target, MESSAGE)).toEqual({ kind: 'gone', status: 410 });
    expect(await send(target, MESSAGE)).toEqual({ kind: 'gone', status: 404 });
    expect(await send(target, MESSAGE)).toEqual({ kind: 'retry', status: 429, retryAfterMs: 7_000 });
    expect(await send(target, MESSAGE)).toEqual({ kind: 'retry', status: 503, retryAfterMs: undefined });
    expect(await send(target, MESSAGE)).toEqual({ kind: 'rejected', status: 413 });
  });

  it('should refuse an endpoint PUSH_HOSTS does not list, or not HTTPS, or with a user, without connecting', async () => {
    const sub = service.subscribe();
    const before = service.requests();
    const elsewhere = createPushSender({ hosts: parsePushHosts('fcm.googleapis.com'), keys, subject: 'mailto:ops@milenotes.test', timeoutMs: 5_000 });
    expect(await elsewhere({ endpoint: sub.endpoint, ...sub.keys }, MESSAGE)).toEqual({ kind: 'refused', problem: 'host_not_allowed' });
    expect(await send({ ...sub.keys, endpoint: sub.endpoint.replace('https:', 'http:') }, MESSAGE)).toEqual({ kind: 'refused', problem: 'not_https' });
    expect(await send({ ...sub.keys, endpoint: sub.endpoint.replace('https://', `https://${service.host}@`) }, MESSAGE)).toEqual({
      kind: 'refused',
      problem: 'has_credentials',
    });
    expect(service.requests()).toBe(before);
  });

  it('should take an unreachable service as worth trying again', async () => {
    const sub = service.subscribe();
    const closed = createPushSender({ hosts: parsePushHosts('127.0.0.1:1'), keys, subject: 'mailto:ops@milenotes.test', timeoutMs: 5_000 });
    expect(await closed({ ...sub.keys, endpoint: 'https://127.0.0.1:1/push/x' }, MESSAGE)).toEqual({ kind: 'retry' });
  });
});
