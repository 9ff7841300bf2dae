/// <reference lib="webworker" />
/**
 * Owns the worker's side of the outbox: Background Sync (or a replay at every worker start where
 * the Sync API is missing) over the same outbox the page uses, and telling open pages what arrived.
 */
import { Queue } from 'workbox-background-sync';
import { fetchTransport } from '../src/outbox/index.js';
import { OUTBOX_SYNC_QUEUE } from '../contract/messages.js';
import type { BadgeNavigator } from '../src/outbox/badge.js';
import { createOutboxSync } from './outboxReplay.js';

declare const self: ServiceWorkerGlobalScope;

export function installOutboxSync(): void {
  const sync = createOutboxSync({
    transport: fetchTransport,
    clients: () => self.clients.matchAll({ type: 'window', includeUncontrolled: true }),
    badge: self.navigator as BadgeNavigator,
  });
  const hasSync = 'sync' in self.registration;
  // Workbox only wires the trigger; its own request store stays empty: the outbox is the one queue.
  new Queue(OUTBOX_SYNC_QUEUE, {
    onSync: async () => {
      if (hasSync) return sync();
      // Start-up replay without the Sync API: nobody retries a rejection, so just log it.
      await sync().catch((error: unknown) => console.info('Outbox replay at worker start:', error));
    },
  });
}
