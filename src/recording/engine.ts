/**
 * Owns the one recording a page makes at a time: the microphone, the MediaRecorder, its chunks into
 * the outbox (IndexedDB) as they arrive, and its limits. No React and no words: the first screen's
 * script (src/firstScreen) and the React screen (src/recorder/useRecorder.ts) are both views over the
 * one engine of the page, so a recording started before React arrives goes on under it unchanged.
 */
import { MAX_RECORDING_MS } from '../../contract/limits.js';
import { StorageFullError } from '../outbox/errors.js';
import { appendChunk, startRecording } from '../outbox/store.js';
import { bitsPerSecondFor, chooseMimeType, MAX_RECORDING_BYTES, recordingUnavailable, type Unavailable, VOICE_CONSTRAINTS } from './formats.js';
import { startLevelMeter } from './levelMeter.js';

/** Why recording did not start: the browser cannot, the microphone was refused or failed, or MediaRecorder would not start. */
export type Blocked =
  | { kind: 'unavailable'; reason: Unavailable }
  /** `error`: the DOMException's name getUserMedia failed with (NotAllowedError, NotFoundError...). */
  | { kind: 'microphone'; error: string | undefined }
  | { kind: 'recorder'; error: string };

/** What went wrong with keeping a recording: the phone is full, the draft could not be made, or a chunk was lost. */
export type Trouble = 'storageFull' | 'cannotSave' | 'partLost';

export type RecordingPhase =
  | { phase: 'idle' }
  | { phase: 'starting' }
  | { phase: 'recording'; id: string; startedAt: number }
  /** Stopped, every chunk written: the draft `id` is ready to be listened to. */
  | { phase: 'stopped'; id: string; startedAt: number; durationMs: number }
  | { phase: 'blocked'; blocked: Blocked };

/** The engine as a view sees it; `trouble` stays until the next start. */
export type RecordingState = RecordingPhase & { trouble?: Trouble };

interface Session {
  id: string;
  recorder: MediaRecorder;
  stream: MediaStream;
  startedAt: number;
  /** When the recorder began to hear (its start event), so a note's length leaves out its startup. */
  heardFrom: number;
  seq: number;
  bytes: number;
  /** Chunks safely in IndexedDB: the length of what can be sent, about a second each. */
  stored: number;
  /** Chunk writes in order; the recording is stopped only once they are done. */
  writes: Promise<void>;
  stopMeter: () => void;
  limit: ReturnType<typeof setTimeout>;
}

const nameOf = (error: unknown): string | undefined => (error as { name?: string } | null)?.name;

const stopTracks = (stream: MediaStream) => {
  for (const track of stream.getTracks()) track.stop();
};

export function createRecordingEngine() {
  let state: RecordingState = { phase: 'idle' };
  let session: Session | undefined;
  let meter: HTMLElement | null | undefined;
  let watchingVisibility = false;
  const listeners = new Set<() => void>();

  /** `trouble`: left out, the trouble said so far stays; null, it is cleared. */
  function set(next: RecordingPhase, trouble?: Trouble | null): void {
    const said = trouble === undefined ? state.trouble : (trouble ?? undefined);
    state = said ? { ...next, trouble: said } : next;
    for (const listener of listeners) listener();
  }

  function stop(): void {
    if (session && session.recorder.state !== 'inactive') session.recorder.stop();
  }

  /** A hidden page may be frozen or killed: what was heard so far is flushed to a chunk. */
  function watchVisibility(): void {
    if (watchingVisibility) return;
    watchingVisibility = true;
    document.addEventListener('visibilitychange', () => {
      const recorder = session?.recorder;
      if (document.visibilityState === 'hidden' && recorder?.state === 'recording') recorder.requestData();
    });
  }

  /** Records into IndexedDB a second at a time, so a reload or crash loses at most a second. */
  async function start(token: string): Promise<void> {
    if (state.phase === 'starting' || state.phase === 'recording' || state.phase === 'stopped') return;
    const unavailable = recordingUnavailable();
    if (unavailable) return set({ phase: 'blocked', blocked: { kind: 'unavailable', reason: unavailable } });
    set({ phase: 'starting' }, null);
    watchVisibility();
    void navigator.storage?.persist?.().catch(() => false);
    let stream: MediaStream;
    try {
      stream = await navigator.mediaDevices.getUserMedia(VOICE_CONSTRAINTS);
    } catch (error) {
      return set({ phase: 'blocked', blocked: { kind: 'microphone', error: nameOf(error) } });
    }
    const mimeType = chooseMimeType();
    let recorder: MediaRecorder;
    try {
      recorder = new MediaRecorder(stream, { ...(mimeType ? { mimeType } : {}), audioBitsPerSecond: bitsPerSecondFor(mimeType) });
    } catch (error) {
      stopTracks(stream);
      return set({ phase: 'blocked', blocked: { kind: 'recorder', error: nameOf(error) ?? 'Error' } });
    }
    const id = crypto.randomUUID();
    const startedAt = Date.now();
    try {
      await startRecording({ id, token, contentType: recorder.mimeType || mimeType || 'audio/webm', startedAt, updatedAt: startedAt });
    } catch (error) {
      stopTracks(stream);
      return set({ phase: 'idle' }, error instanceof StorageFullError ? 'storageFull' : 'cannotSave');
    }
    const current: Session = {
      id,
      recorder,
      stream,
      startedAt,
      heardFrom: startedAt,
      seq: 0,
      bytes: 0,
      stored: 0,
      writes: Promise.resolve(),
      stopMeter: startLevelMeter(stream, () => meter),
      limit: setTimeout(stop, MAX_RECORDING_MS),
    };
    session = current;
    recorder.ondataavailable = (event) => {
      if (event.data.size === 0) return;
      const seq = current.seq++;
      current.bytes += event.data.size;
      if (current.bytes >= MAX_RECORDING_BYTES) stop();
      // Blob → ArrayBuffer outside any transaction, then one write per chunk.
      current.writes = current.writes.then(async () => {
        try {
          await appendChunk(id, seq, await event.data.arrayBuffer());
          current.stored++;
        } catch (error) {
          set(state, error instanceof StorageFullError ? 'storageFull' : 'partLost');
          stop();
        }
      });
    };
    recorder.onstart = () => {
      current.heardFrom = Date.now();
    };
    recorder.onstop = () => {
      const heardUntil = Date.now();
      clearTimeout(current.limit);
      current.stopMeter();
      stopTracks(current.stream);
      void current.writes.then(() => {
        const durationMs = Math.min(heardUntil - current.heardFrom, MAX_RECORDING_MS, current.stored * 1000);
        session = undefined;
        set({ phase: 'stopped', id, startedAt, durationMs });
      });
    };
    recorder.start(1000);
    set({ phase: 'recording', id, startedAt });
  }

  return {
    /** For useSyncExternalStore and the first screen: the same object until something changed. */
    snapshot: (): RecordingState => state,
    subscribe(listener: () => void): () => void {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    start,
    stop,
    /** The view has taken the stopped recording (to listen to it): back to idle. */
    release(): void {
      if (state.phase === 'stopped') set({ phase: 'idle' });
    },
    /** Where the live level is drawn: the recording panel's bar, whichever screen shows it now. */
    meterInto(element: HTMLElement | null): void {
      meter = element;
    },
  };
}

export type RecordingEngine = ReturnType<typeof createRecordingEngine>;

/** Where the page keeps its engine: one instance, whichever script evaluates this module first. */
const PAGE_ENGINE = Symbol.for('milenotes.recording');

/**
 * The page's one engine. The first screen's script, inlined into r.html so Record works without a
 * request after the HTML, carries its own copy of this module and makes the engine; the React
 * chunk's copy finds it here, with any recording under way.
 */
export const recording: RecordingEngine = ((globalThis as { [PAGE_ENGINE]?: RecordingEngine })[PAGE_ENGINE] ??= createRecordingEngine());
