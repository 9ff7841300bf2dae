/**
 * The delivery benchmark's second baseline, bench-only: Workbox's stock BackgroundSyncPlugin on the
 * note PUT, exactly as its docs show it, served at /bench/baseline-sw.js with scope /bench/.
 */
import { BackgroundSyncPlugin } from 'workbox-background-sync';
import { clientsClaim } from 'workbox-core';
import { registerRoute } from 'workbox-routing';
import { NetworkOnly } from 'workbox-strategies';

registerRoute(
  ({ url }) => /^\/api\/r\/[^/]+\/notes\//.test(url.pathname),
  new NetworkOnly({ plugins: [new BackgroundSyncPlugin('bench-notes', { maxRetentionTime: 24 * 60 })] }),
  'PUT',
);

// Nothing waits on it, as in Workbox's docs: the spec's skipWaiting() always resolves.
void (self as unknown as { skipWaiting(): Promise<void> }).skipWaiting();
clientsClaim();
