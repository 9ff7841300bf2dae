import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { MAX_RECORDING_MS } from '../shared/limits.js';
import { appendChunk, discardRecording, readRecording, startRecording, StorageFullError } from '../shared/outbox/index.js';
import { MAX_RECORDING_BYTES, VOICE_CONSTRAINTS, bitsPerSecondFor, chooseMimeType, microphoneErrorMessage, recordingUnavailableReason } from './mic.js';
import { FAILED, describeFailure } from './failures.js';
import { startLevelMeter } from './levelMeter.js';
import { t } from '../i18n/index.js';
import { useLanguage } from '../i18n/useLanguage.js';

export type RecorderState =
  | { phase: 'idle' }
  | { phase: 'starting' }
  | { phase: 'recording'; startedAt: number }
  | { phase: 'review'; draftId: string; durationMs: number; url: string; recovered: boolean }
  | { phase: 'blocked'; message: string };

/** A sentence kept as how to say it, so it is said in the language in use whenever it is shown. */
type Said = () => string;
type HeldState = Exclude<RecorderState, { phase: 'blocked' }> | { phase: 'blocked'; say: Said };

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
  /** Chunk writes in order; awaited before the recording is shown for review. */
  writes: Promise<void>;
  stopMeter: () => void;
  limit: ReturnType<typeof setTimeout>;
}

/** Records into IndexedDB a second at a time, so a reload or crash loses at most a second. */
export function useRecorder(token: string, meter: React.RefObject<HTMLElement | null>) {
  const [state, setState] = useState<HeldState>({ phase: 'idle' });
  const [warning, setWarning] = useState<Said>();
  const lang = useLanguage();
  const session = useRef<Session>(undefined);

  const show = useCallback(async (draftId: string, recovered: boolean, durationMs?: number) => {
    const { draft, data } = await readRecording(draftId);
    const url = URL.createObjectURL(new Blob([data], { type: draft.contentType }));
    setState({ phase: 'review', draftId, recovered, url, durationMs: durationMs ?? draft.updatedAt - draft.startedAt });
  }, []);

  const stop = useCallback(() => {
    const current = session.current;
    if (current && current.recorder.state !== 'inactive') current.recorder.stop();
  }, []);

  const start = useCallback(async () => {
    const unavailable = recordingUnavailableReason();
    if (unavailable) return setState({ phase: 'blocked', say: () => recordingUnavailableReason() ?? unavailable });
    setWarning(undefined);
    setState({ phase: 'starting' });
    void navigator.storage?.persist?.().catch(() => false);
    let stream: MediaStream;
    try {
      stream = await navigator.mediaDevices.getUserMedia(VOICE_CONSTRAINTS);
    } catch (error) {
      return setState({ phase: 'blocked', say: () => microphoneErrorMessage(error) });
    }
    const mimeType = chooseMimeType();
    let recorder: MediaRecorder;
    try {
      recorder = new MediaRecorder(stream, { ...(mimeType ? { mimeType } : {}), audioBitsPerSecond: bitsPerSecondFor(mimeType) });
    } catch (error) {
      for (const track of stream.getTracks()) track.stop();
      return setState({ phase: 'blocked', say: () => t('record.cannotStart', { name: (error as Error).name }) });
    }
    const id = crypto.randomUUID();
    const startedAt = Date.now();
    try {
      await startRecording({ id, token, contentType: recorder.mimeType || mimeType || 'audio/webm', startedAt, updatedAt: startedAt });
    } catch (error) {
      for (const track of stream.getTracks()) track.stop();
      setWarning(() => () => (error instanceof StorageFullError ? t('error.storageFull') : t('record.cannotSave')));
      return setState({ phase: 'idle' });
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
      stopMeter: startLevelMeter(stream, meter),
      limit: setTimeout(stop, MAX_RECORDING_MS),
    };
    session.current = current;
    recorder.ondataavailable = (event) => {
      if (event.data.size === 0) return;
      const seq = current.seq++;
      current.bytes += event.data.size;
      if (current.bytes >= MAX_RECORDING_BYTES) stop();
      // Blob → ArrayBuffer outside any transaction (FIELD-NOTES), then one write per chunk.
      current.writes = current.writes.then(async () => {
        try {
          await appendChunk(id, seq, await event.data.arrayBuffer());
          current.stored++;
        } catch (error) {
          setWarning(() => () => (error instanceof StorageFullError ? t('error.storageFull') : t('record.partLost')));
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
      for (const track of current.stream.getTracks()) track.stop();
      void current.writes.then(async () => {
        const durationMs = Math.min(heardUntil - current.heardFrom, MAX_RECORDING_MS, current.stored * 1000);
        session.current = undefined;
        await show(id, false, durationMs).catch((error: unknown) => {
          // The chunks stay on this phone as a draft; say so rather than just going back to idle.
          setWarning(() => () => describeFailure(error, FAILED.listen));
          setState({ phase: 'idle' });
        });
      });
    };
    recorder.start(1000);
    setState({ phase: 'recording', startedAt });
  }, [token, meter, show, stop]);

  /** 'Record again' and 'Discard': the person chose to drop this take. */
  const discard = useCallback(async (draftId: string) => {
    await discardRecording(draftId);
    setState({ phase: 'idle' });
  }, []);

  const reset = useCallback(() => setState({ phase: 'idle' }), []);

  useEffect(() => {
    if (state.phase !== 'review') return;
    return () => URL.revokeObjectURL(state.url);
  }, [state]);

  // A hidden page may be frozen or killed: flush what was heard so far.
  useEffect(() => {
    const flush = () => {
      const recorder = session.current?.recorder;
      if (document.visibilityState === 'hidden' && recorder?.state === 'recording') recorder.requestData();
    };
    document.addEventListener('visibilitychange', flush);
    return () => {
      document.removeEventListener('visibilitychange', flush);
      const current = session.current;
      if (current?.recorder.state === 'recording') current.recorder.stop();
    };
  }, []);

  // Said now, in the language in use (lang), so a change of language shows at once.
  // biome-ignore lint/correctness/useExhaustiveDependencies: state.say() reads the language in use; lang is what says it changed.
  const shown = useMemo<RecorderState>(() => (state.phase === 'blocked' ? { phase: 'blocked', message: state.say() } : state), [state, lang]);
  return { state: shown, warning: warning?.(), activeId: session.current?.id, start, stop, discard, reset, review: show };
}
