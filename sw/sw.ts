/// <reference lib="webworker" />
/**
 * The service worker's entry: it only wires events. Precaching keeps the marketing pages, the
 * recorder shell and its chunk available offline; the outbox sync lives in outboxSync.ts.
 * An update waits until every tab of the old version is closed: it never reloads a page.
 */
import { clientsClaim } from 'workbox-core';
import { cleanupOutdatedCaches, createHandlerBoundToURL, matchPrecache, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute, setCatchHandler } from 'workbox-routing';
import { NetworkOnly } from 'workbox-strategies';
import { installOutboxSync } from './outboxSync.js';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Array<{ url: string; revision: string | null }> };

// '/' -> /index.html and '/terms' -> /terms.html come from precaching's cleanURLs.
precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();

// Any link /r/<token> opens the same shell; the recorder fetches the link's data itself.
registerRoute(new NavigationRoute(createHandlerBoundToURL('/r.html'), { allowlist: [/^\/r\/[^/]+\/?$/] }));

// Other pages go to the network; offline, they get the not-found page rather than the browser's error.
registerRoute(({ request }) => request.mode === 'navigate', new NetworkOnly());
setCatchHandler(async ({ request }) => {
  if (request.mode === 'navigate') return (await matchPrecache('/404.html')) ?? Response.error();
  return Response.error();
});

// Only the very first install takes control of open pages at once; it replaces nothing.
clientsClaim();

installOutboxSync();
