import { useCallback, useEffect, useRef, useState } from 'react';
import { uploadNote } from '../apiClient.js';
import { OUTBOX_CHANNEL, OUTBOX_SYNC_TAG, isNoteDelivered, type OutboxBroadcast } from '../shared/messages.js';
import type { OutboxNote, RecordingDraft } from '../shared/notes.js';
import { deleteNote, listDrafts, listNotes, replayOutbox, retryNote } from '../shared/outbox/index.js';
import { FAILED, describeFailure } from './failures.js';

/** Never re-check sooner than this, so a note due now cannot spin the page. */
const MIN_TIMER_MS = 1_000;

export interface OutboxView {
  notes: OutboxNote[];
  drafts: RecordingDraft[];
  /** Upload progress by note id, 0..1, from whichever uploader has it. */
  progress: Record<string, number>;
  /** Why the outbox cannot be read or replayed right now, in words; undefined when it works. */
  failure?: string;
  /** Ask for an upload now; `force` skips backoff (back online, Retry, page load). */
  replay: (force?: boolean) => void;
  retry: (id: string) => Promise<void>;
  remove: (id: string) => Promise<void>;
  refresh: () => Promise<void>;
}

/**
 * Asks the worker for a Background Sync; where the API is missing the page's own triggers do it.
 * False when it cannot happen (no API, no worker, or the person turned background sync off).
 */
export async function requestBackgroundSync(): Promise<boolean> {
  const registration = await navigator.serviceWorker?.getRegistration().catch(() => undefined);
  const sync = (registration as (ServiceWorkerRegistration & { sync?: { register(tag: string): Promise<void> } }) | undefined)?.sync;
  if (!sync) return false;
  return sync.register(OUTBOX_SYNC_TAG).then(() => true, () => false);
}

export function hasBackgroundSync(): boolean {
  return typeof ServiceWorkerRegistration !== 'undefined' && 'sync' in ServiceWorkerRegistration.prototype;
}

/** The person's notes for this runner, kept current from IndexedDB, the other tabs and the worker. */
export function useOutbox(token: string): OutboxView {
  const [notes, setNotes] = useState<OutboxNote[]>([]);
  const [drafts, setDrafts] = useState<RecordingDraft[]>([]);
  const [progress, setProgress] = useState<Record<string, number>>({});
  // Two sources of failure, kept apart: a good read must not erase a stopped send, and the reverse.
  const [readFailure, setReadFailure] = useState<string>();
  const [sendFailure, setSendFailure] = useState<string>();
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);

  const replay = useCallback((force = false) => {
    if (!navigator.onLine) return;
    // A note's own problems are on the note (lastError); this is the outbox itself failing.
    void replayOutbox(uploadNote, { force }).then(
      () => setSendFailure(undefined),
      (error: unknown) => setSendFailure(describeFailure(error, FAILED.send)),
    );
  }, []);

  const refresh = useCallback(async () => {
    let nextNotes: OutboxNote[];
    let nextDrafts: RecordingDraft[];
    try {
      [nextNotes, nextDrafts] = await Promise.all([listNotes(token), listDrafts(token)]);
    } catch (error) {
      return setReadFailure(describeFailure(error, FAILED.readNotes));
    }
    setReadFailure(undefined);
    setNotes(nextNotes);
    setDrafts(nextDrafts);
    // Wake up when the earliest waiting note is due again (backoff, Retry-After).
    clearTimeout(timer.current);
    const due = nextNotes.filter((n) => n.state === 'waiting').map((n) => n.nextAttemptAt);
    if (due.length) timer.current = setTimeout(() => replay(), Math.max(MIN_TIMER_MS, Math.min(...due) - Date.now()));
  }, [token, replay]);

  useEffect(() => {
    void refresh();
    replay(true);
    const channel = new BroadcastChannel(OUTBOX_CHANNEL);
    channel.onmessage = (event: MessageEvent<OutboxBroadcast>) => {
      if (event.data.type === 'outbox-progress') {
        const { noteId, fraction } = event.data;
        setProgress((p) => ({ ...p, [noteId]: fraction }));
      } else void refresh();
    };
    const onWorkerMessage = (event: MessageEvent) => {
      if (isNoteDelivered(event.data)) void refresh();
    };
    const onOnline = () => replay(true);
    const onVisible = () => {
      if (document.visibilityState === 'visible') {
        void refresh();
        replay();
      }
    };
    navigator.serviceWorker?.addEventListener('message', onWorkerMessage);
    window.addEventListener('online', onOnline);
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      channel.close();
      clearTimeout(timer.current);
      navigator.serviceWorker?.removeEventListener('message', onWorkerMessage);
      window.removeEventListener('online', onOnline);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [refresh, replay]);

  const retry = useCallback(
    async (id: string) => {
      await retryNote(id);
      replay(true);
    },
    [replay],
  );
  const remove = useCallback(async (id: string) => deleteNote(id), []);
  return { notes, drafts, progress, failure: readFailure ?? sendFailure, replay, retry, remove, refresh };
}
