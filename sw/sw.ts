/// <reference lib="webworker" />
/**
 * The service worker's entry: it only wires events. The install precaches what opens the
 * recorder offline and the pages' HTML; the rest (pictures, the keepsake screen) is kept on use
 * or fetched later when no note is waiting (laterCache.ts); the outbox sync lives in
 * outboxSync.ts. An update waits until every tab of the old version is closed: it never
 * reloads a page. A push is shown and opened by pushNotice.ts; a replaced subscription
 * is renewed by pushChange.ts.
 */
import { clientsClaim } from 'workbox-core';
import { cleanupOutdatedCaches, createHandlerBoundToURL, matchPrecache, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute, setCatchHandler } from 'workbox-routing';
import { NetworkFirst, NetworkOnly } from 'workbox-strategies';
import { isCacheLater } from '../contract/messages.js';
import { RECORDER_PAGE } from '../contract/paths.js';
import { allNotes, isPending } from '../src/outbox/index.js';
import { createLaterCache, type LaterEntry } from './laterCache.js';
import { installOutboxSync } from './outboxSync.js';
import { installPushChange } from './pushChange.js';
import { installPush } from './pushNotice.js';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: LaterEntry[]; __WB_LATER: LaterEntry[] };

// The home page's races come from the catalogue (server/routes/home-page.ts): the network's page
// first, so the list is never older than the server's; the last one seen when the network is away
// or slower than a few seconds, then the build's. Before precaching's route, which would answer '/'.
const home = new NetworkFirst({ cacheName: 'milenotes-home', networkTimeoutSeconds: 3 });
registerRoute(
  ({ url, request }) => request.mode === 'navigate' && url.origin === self.location.origin && url.pathname === '/',
  async (options) => (await home.handle(options).catch(() => undefined)) ?? (await matchPrecache('/index.html')) ?? Response.error(),
);

// '/terms' -> /terms.html comes from precaching's cleanURLs.
precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();

const later = createLaterCache({
  entries: self.__WB_LATER,
  origin: self.location.origin,
  notesWaiting: async () => (await allNotes()).some(isPending),
});
registerRoute(
  ({ url, request }) => request.method === 'GET' && later.owns(url),
  ({ request }) => later.respond(request),
);
self.addEventListener('message', (event) => {
  if (isCacheLater(event.data)) event.waitUntil(later.fill());
});

// Any link /r/<token> opens the same shell; the recorder fetches the link's data itself.
registerRoute(new NavigationRoute(createHandlerBoundToURL('/r.html'), { allowlist: [RECORDER_PAGE] }));

// Other pages go to the network; offline, they get the not-found page rather than the browser's error.
registerRoute(({ request }) => request.mode === 'navigate', new NetworkOnly());
setCatchHandler(async ({ request }) => {
  if (request.mode === 'navigate') return (await matchPrecache('/404.html')) ?? Response.error();
  return Response.error();
});

// Only the very first install takes control of open pages at once; it replaces nothing.
clientsClaim();

installOutboxSync();

// A push shows its notice; a tap opens the recorder it names (pushNotice.ts).
installPush();
// A subscription the browser replaced is renewed and told to each link (pushChange.ts).
installPushChange((match, handler, method) =>
  registerRoute(
    ({ url }) => match(url),
    ({ request }) => handler(request),
    method,
  ),
);
