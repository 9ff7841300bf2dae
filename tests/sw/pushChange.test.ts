/** A replaced push subscription (sw/pushChange.ts): the links this phone subscribed on are remembered, and each is told of the new endpoint. */
import { describe, expect, it, vi } from 'vitest';
import { passPushRequest, readLinks, resubscribe } from '../../sw/pushChange.js';

const ORIGIN = 'https://m.test';
const [ONE, TWO] = ['AbCdEfGhIjKlMnOpQrStUvWxYz012345', 'ZyXwVuTsRqPoNmLkJiHgFeDcBa543210'];
const KEYS = { p256dh: 'p'.repeat(87), auth: 'a'.repeat(22) };

function fakeCaches(): CacheStorage {
  const kept = new Map<string, Response>();
  const cache = {
    match: async (key: string) => kept.get(key)?.clone(),
    put: async (key: string, response: Response) => void kept.set(key, response),
  };
  return { open: async () => cache } as unknown as CacheStorage;
}

const subscribeRequest = (token: string, endpoint: string) =>
  new Request(`${ORIGIN}/api/r/${token}/push`, { method: 'PUT', body: JSON.stringify({ endpoint, keys: KEYS, lang: 'en', heard: true }) });

describe('a replaced push subscription', () => {
  it('should remember the links a subscribe went through, forget one turned off, and keep nothing for a refused subscribe', async () => {
    const caches = fakeCaches();
    const ok = vi.fn(async () => new Response('{}', { status: 200 }));
    await passPushRequest(subscribeRequest(ONE, 'https://push.test/old'), caches, ok);
    await passPushRequest(subscribeRequest(TWO, 'https://push.test/old'), caches, ok);
    await passPushRequest(subscribeRequest(ONE, 'https://push.test/other'), caches, async () => new Response('{}', { status: 409 }));
    expect(await readLinks(caches)).toEqual({ endpoint: 'https://push.test/old', tokens: [ONE, TWO] });
    await passPushRequest(new Request(`${ORIGIN}/api/r/${ONE}/push`, { method: 'DELETE' }), caches, async () => new Response(null, { status: 204 }));
    expect(await readLinks(caches)).toEqual({ endpoint: 'https://push.test/old', tokens: [TWO] });
  });

  it('should subscribe again with the old key and tell each link, forgetting a link that no longer knows this phone', async () => {
    const caches = fakeCaches();
    const ok = async () => new Response('{}', { status: 200 });
    await passPushRequest(subscribeRequest(ONE, 'https://push.test/old'), caches, ok);
    await passPushRequest(subscribeRequest(TWO, 'https://push.test/old'), caches, ok);
    const told: Array<[string, unknown]> = [];
    const fetcher = vi.fn(async (url: string, init?: RequestInit) => {
      told.push([url, JSON.parse(String(init!.body))]);
      return new Response('{}', { status: url.includes(TWO) ? 409 : 200 });
    }) as unknown as typeof fetch;
    const key = new Uint8Array([4, 1, 2]).buffer;
    const subscribe = vi.fn(async () => ({ endpoint: 'https://push.test/new', toJSON: () => ({ endpoint: 'https://push.test/new', keys: KEYS }) }));
    const registration = { pushManager: { subscribe } } as unknown as ServiceWorkerRegistration;
    await resubscribe(
      { oldSubscription: { endpoint: 'https://push.test/old', options: { applicationServerKey: key } } as unknown as PushSubscription },
      registration,
      caches,
      fetcher,
    );
    expect(subscribe).toHaveBeenCalledWith({ userVisibleOnly: true, applicationServerKey: key });
    const body = { oldEndpoint: 'https://push.test/old', endpoint: 'https://push.test/new', keys: KEYS };
    expect(told).toEqual([
      [`/api/r/${ONE}/push/endpoint`, body],
      [`/api/r/${TWO}/push/endpoint`, body],
    ]);
    expect(await readLinks(caches)).toEqual({ endpoint: 'https://push.test/new', tokens: [ONE] });
  });

  it('should do nothing when no link was subscribed from this phone', async () => {
    const fetcher = vi.fn() as unknown as typeof fetch;
    const subscribe = vi.fn();
    await resubscribe({}, { pushManager: { subscribe } } as unknown as ServiceWorkerRegistration, fakeCaches(), fetcher);
    expect([vi.mocked(fetcher).mock.calls.length, subscribe.mock.calls.length]).toEqual([0, 0]);
  });
});
