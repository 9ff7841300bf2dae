/**
 * Owns the recorder page's side of the outbox for one link: what the screen shows of it (notes,
 * drafts, progress, what failed) and when this page uploads. It decides no note's state: that is
 * the outbox's (src/outbox). No React and no browser events: useOutbox binds it to both.
 */
import type { OutboxBroadcast } from '../../contract/messages.js';
import type { OutboxNote, RecordingDraft } from '../outbox/notes.js';
import {
  COMEBACK_PROBE_MS,
  deleteNote,
  enqueueRecording,
  isPending,
  listDrafts,
  listNotes,
  nextProbeInterval,
  nextWake,
  replayOutbox,
  retryNote,
  type SendDetails,
  type Transport,
} from '../outbox/index.js';
import { FAILED, failureKey, type FailureKey } from './failures.js';

/** Never re-check sooner than this, so a note due now cannot spin the page. */
export const MIN_TIMER_MS = 1_000;

export interface PageOutboxState {
  notes: OutboxNote[];
  drafts: RecordingDraft[];
  /** Notes still to reach the server (the outbox's isPending). */
  pending: number;
  /** Upload progress by note id, 0..1, from whichever uploader has it. */
  progress: Record<string, number>;
  /** Whether notes go on sending with the page closed; false once the browser refused to. */
  backgroundSync: boolean;
  /**
   * Why the outbox cannot be read or replayed right now, as the key of its sentence (said in the
   * language in use when shown, so a change of language leaves no stale words); undefined when it works.
   */
  failure?: FailureKey;
}

/** What the page needs from the browser, given by useOutbox (and by the tests). */
export interface PageOutboxEnv {
  transport: Transport;
  /** The browser believes it has a network; replaying without one would only wait for timeouts. */
  online: () => boolean;
  /** Asks the worker to keep sending after the page closes; false when it cannot happen. */
  requestSync: () => Promise<boolean>;
  /** Whether this browser can send in the background at all, before anything was asked. */
  backgroundSync: boolean;
}

export function createPageOutbox(token: string, env: PageOutboxEnv) {
  let notes: OutboxNote[] = [];
  let drafts: RecordingDraft[] = [];
  let progress: Record<string, number> = {};
  let backgroundSync = env.backgroundSync;
  // Two sources of failure, kept apart: a good read must not erase a stopped send, and the reverse.
  let readFailure: FailureKey | undefined;
  let sendFailure: FailureKey | undefined;
  let state: PageOutboxState = { notes, drafts, pending: 0, progress, backgroundSync };
  const listeners = new Set<() => void>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let started = false;
  let probeEvery = COMEBACK_PROBE_MS;

  function changed() {
    state = { notes, drafts, pending: notes.filter(isPending).length, progress, backgroundSync, failure: readFailure ?? sendFailure };
    for (const listener of listeners) listener();
  }

  /** Asks for an upload now; `force` skips backoff (back online, Retry, page load). Never rejects. */
  async function replay(force = false): Promise<void> {
    if (!env.online()) return;
    const before = sendFailure;
    try {
      const report = await replayOutbox(env.transport, { force });
      probeEvery = force ? COMEBACK_PROBE_MS : nextProbeInterval(probeEvery, report);
      sendFailure = undefined;
    } catch (error) {
      // A note's own problems are on the note (lastError); this is the outbox itself failing.
      sendFailure = failureKey(error, FAILED.send);
    }
    if (sendFailure !== before) changed();
    // A probe that got no answer changes no note, so no broadcast re-arms the timer: arm it here.
    schedule();
  }

  /** Wakes up when the earliest pending note is due, or for the next comeback probe. */
  function schedule() {
    clearTimeout(timer);
    const wake = nextWake(notes, Date.now(), probeEvery);
    if (started && wake !== undefined) timer = setTimeout(() => void replay(), Math.max(MIN_TIMER_MS, wake - Date.now()));
  }

  /** Re-reads this link's notes and drafts, and wakes up when the earliest pending note is due (or to probe for the comeback). */
  async function refresh(): Promise<void> {
    try {
      [notes, drafts] = await Promise.all([listNotes(token), listDrafts(token)]);
      readFailure = undefined;
    } catch (error) {
      readFailure = failureKey(error, FAILED.readNotes);
      return changed();
    }
    changed();
    schedule();
  }

  return {
    /** For useSyncExternalStore: the same object until something changed. */
    snapshot: () => state,
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    /** The screen is shown: read, and send what is waiting. */
    start() {
      started = true;
      void refresh();
      void replay(true);
    },
    /** The screen is gone: no more timers. */
    stop() {
      started = false;
      clearTimeout(timer);
    },
    refresh,
    replay,
    /** A message on the outbox channel: progress is shown, any other change re-read. */
    hear(message: OutboxBroadcast) {
      if (message.type !== 'outbox-progress') return void refresh();
      progress = { ...progress, [message.noteId]: message.fraction };
      changed();
    },
    /**
     * Send: the draft becomes a pending note, this page tries it at once, and the worker is asked
     * to keep trying. Rejects only when the note could not be saved (the draft is then kept).
     */
    async send(draftId: string, details: SendDetails): Promise<OutboxNote> {
      const note = await enqueueRecording(draftId, details);
      await refresh();
      void replay(true);
      // Only promise background sending where the browser accepted the request.
      void env
        .requestSync()
        .catch(() => false)
        .then((accepted) => {
          backgroundSync = accepted;
          changed();
        });
      return note;
    },
    /** 'Retry' on a note that needs attention: due now, and tried now. */
    async retry(id: string): Promise<void> {
      await retryNote(id);
      void replay(true);
    },
    /** 'Delete': the note and its audio leave this phone. */
    remove: (id: string): Promise<void> => deleteNote(id),
  };
}

export type PageOutbox = ReturnType<typeof createPageOutbox>;
