import { useEffect, useMemo, useSyncExternalStore } from 'react';
import { uploadNote } from '../apiClient.js';
import { showWaitingOnBadge } from '../outbox/badge.js';
import { OUTBOX_CHANNEL, OUTBOX_SYNC_TAG, isNoteDelivered, type OutboxBroadcast } from '../../contract/messages.js';
import type { OutboxNote } from '../outbox/notes.js';
import type { SendDetails } from '../outbox/index.js';
import { createPageOutbox, type PageOutboxState } from './pageOutbox.js';

export interface OutboxView extends PageOutboxState {
  /** The recorded draft becomes a note on its way (saved, tried now, handed to the worker); rejects if it could not be saved. */
  send: (draftId: string, details: SendDetails) => Promise<OutboxNote>;
  retry: (id: string) => Promise<void>;
  remove: (id: string) => Promise<void>;
}

/**
 * Asks the worker for a Background Sync; where the API is missing the page's own triggers do it.
 * False when it cannot happen (no API, no worker, or the person turned background sync off).
 */
async function requestBackgroundSync(): Promise<boolean> {
  const registration = await navigator.serviceWorker?.getRegistration().catch(() => undefined);
  const sync = (registration as (ServiceWorkerRegistration & { sync?: { register(tag: string): Promise<void> } }) | undefined)?.sync;
  if (!sync) return false;
  return sync.register(OUTBOX_SYNC_TAG).then(
    () => true,
    () => false,
  );
}

function hasBackgroundSync(): boolean {
  return typeof ServiceWorkerRegistration !== 'undefined' && 'sync' in ServiceWorkerRegistration.prototype;
}

/** The person's notes for this runner, kept current from IndexedDB, the other tabs and the worker. */
export function useOutbox(token: string): OutboxView {
  const page = useMemo(
    () =>
      createPageOutbox(token, {
        transport: uploadNote,
        online: () => navigator.onLine,
        requestSync: requestBackgroundSync,
        backgroundSync: hasBackgroundSync(),
      }),
    [token],
  );
  const state = useSyncExternalStore(page.subscribe, page.snapshot, page.snapshot);

  useEffect(() => {
    page.start();
    // The icon counts what is not delivered (src/outbox/badge.ts): set at once and on every change of the outbox.
    void showWaitingOnBadge();
    const channel = new BroadcastChannel(OUTBOX_CHANNEL);
    channel.onmessage = (event: MessageEvent<OutboxBroadcast>) => {
      page.hear(event.data);
      if (event.data.type === 'outbox-changed') void showWaitingOnBadge();
    };
    const onWorkerMessage = (event: MessageEvent) => {
      if (isNoteDelivered(event.data)) void page.refresh();
    };
    const onOnline = () => void page.replay(true);
    const onVisible = () => {
      if (document.visibilityState === 'visible') {
        void page.refresh();
        void page.replay();
      }
    };
    navigator.serviceWorker?.addEventListener('message', onWorkerMessage);
    window.addEventListener('online', onOnline);
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      page.stop();
      channel.close();
      navigator.serviceWorker?.removeEventListener('message', onWorkerMessage);
      window.removeEventListener('online', onOnline);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [page]);

  return { ...state, send: page.send, retry: page.retry, remove: page.remove };
}
