/// <reference lib="webworker" />
/**
 * Owns keeping a replaced push subscription heard. A browser may replace its push
 * subscription (Firefox and Chromium fire pushsubscriptionchange); the server would go on sending
 * to the old endpoint, and the phone would silently stop hearing. So this worker remembers which
 * links this phone subscribed on (it sees the recorder's own PUT and DELETE of /api/r/:token/push
 * go by, and keeps the tokens and the endpoint in a cache entry), and on the event re-subscribes
 * with the same key and tells each link (PUT /api/r/:token/push/endpoint, the old endpoint
 * named): the server moves only this phone's row on that link.
 */
import { PUSH_API_PATH, pushEndpointPath, pushPath } from '../contract/paths.js';

declare const self: ServiceWorkerGlobalScope;

const CACHE = 'milenotes-push';
const KEY = '/__push-links';
/** PUSH_MAX_PER_PHONE is 20 by default: room for more, never unbounded. */
const MAX_LINKS = 64;

export interface PushLinks {
  /** The endpoint this phone last subscribed with. */
  endpoint?: string;
  tokens: string[];
}

export async function readLinks(caches: CacheStorage): Promise<PushLinks> {
  try {
    const kept = await (await caches.open(CACHE)).match(KEY);
    const json = (kept ? await kept.json() : {}) as Partial<PushLinks>;
    return {
      endpoint: typeof json.endpoint === 'string' ? json.endpoint : undefined,
      tokens: Array.isArray(json.tokens) ? json.tokens.filter((t) => typeof t === 'string') : [],
    };
  } catch {
    return { tokens: [] };
  }
}

async function writeLinks(caches: CacheStorage, links: PushLinks): Promise<void> {
  const tokens = [...new Set(links.tokens)].slice(-MAX_LINKS);
  await (await caches.open(CACHE)).put(
    KEY,
    new Response(JSON.stringify({ endpoint: links.endpoint, tokens }), { headers: { 'content-type': 'application/json' } }),
  );
}

/** The recorder's subscribe or unsubscribe, passed on untouched; what it did is remembered. */
export async function passPushRequest(request: Request, caches: CacheStorage, fetcher: typeof fetch = fetch): Promise<Response> {
  const token = PUSH_API_PATH.exec(new URL(request.url).pathname)?.[1];
  const sent =
    request.method === 'PUT'
      ? request
          .clone()
          .json()
          .catch(() => undefined)
      : undefined;
  const response = await fetcher(request);
  if (!token || !response.ok) return response;
  try {
    const links = await readLinks(caches);
    if (request.method === 'DELETE') await writeLinks(caches, { ...links, tokens: links.tokens.filter((t) => t !== token) });
    else {
      const endpoint = ((await sent) as { endpoint?: unknown } | undefined)?.endpoint;
      await writeLinks(caches, {
        endpoint: typeof endpoint === 'string' ? endpoint : links.endpoint,
        tokens: [...links.tokens.filter((t) => t !== token), token],
      });
    }
  } catch {
    // Remembering is a nicety: the recorder's answer goes back whatever happens here.
  }
  return response;
}

const bytesOf = (base64url: string) => Uint8Array.from(atob(base64url.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));

/** What pushsubscriptionchange hands over (old and new may each be missing, as browsers differ). */
export interface SubscriptionChange {
  oldSubscription?: PushSubscription | null;
  newSubscription?: PushSubscription | null;
}

/**
 * Re-subscribes (unless the browser already did) and tells every link this phone was on. A link
 * that answers that this phone is not subscribed there (any more) is forgotten.
 */
export async function resubscribe(
  change: SubscriptionChange,
  registration: ServiceWorkerRegistration,
  caches: CacheStorage,
  fetcher: typeof fetch = fetch,
): Promise<void> {
  const links = await readLinks(caches);
  const oldEndpoint = change.oldSubscription?.endpoint ?? links.endpoint;
  if (!oldEndpoint || links.tokens.length === 0) return;
  let fresh = change.newSubscription ?? undefined;
  if (!fresh) {
    let key = change.oldSubscription?.options.applicationServerKey ?? null;
    if (!key) {
      const state = await fetcher(pushPath(links.tokens[0]!), { credentials: 'same-origin' });
      if (!state.ok) return;
      key = bytesOf(((await state.json()) as { publicKey: string }).publicKey).buffer as ArrayBuffer;
    }
    fresh = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  }
  const json = fresh.toJSON();
  const body = JSON.stringify({
    oldEndpoint,
    endpoint: json.endpoint ?? fresh.endpoint,
    keys: { p256dh: json.keys?.p256dh ?? '', auth: json.keys?.auth ?? '' },
  });
  const kept: string[] = [];
  for (const token of links.tokens) {
    const answer = await fetcher(pushEndpointPath(token), {
      method: 'PUT',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body,
    }).catch(() => undefined);
    // Told, or not reachable now (kept, to try at the next change); gone or not this phone's: forgotten.
    if (!answer || answer.ok || answer.status >= 500 || answer.status === 429) kept.push(token);
  }
  await writeLinks(caches, { endpoint: fresh.endpoint, tokens: kept });
}

export function installPushChange(
  registerPut: (match: (url: URL) => boolean, handler: (request: Request) => Promise<Response>, method: 'PUT' | 'DELETE') => void,
): void {
  const ours = (url: URL) => url.origin === self.location.origin && PUSH_API_PATH.test(url.pathname);
  for (const method of ['PUT', 'DELETE'] as const) registerPut(ours, (request) => passPushRequest(request, self.caches), method);
  self.addEventListener('pushsubscriptionchange', (event) => {
    const change = event as ExtendableEvent & SubscriptionChange;
    change.waitUntil(resubscribe(change, self.registration, self.caches));
  });
}
