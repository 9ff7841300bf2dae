import { useCallback, useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { recording, type Trouble } from '../recording/engine.js';
import { discardRecording, readRecording } from '../outbox/index.js';
import { FAILED, describeFailure } from './failures.js';
import { blockedMessage } from './mic.js';
import { t, type Key } from '../i18n/index.js';
import { useLanguage } from '../i18n/useLanguage.js';

export type RecorderState =
  | { phase: 'idle' }
  | { phase: 'starting' }
  | { phase: 'recording'; startedAt: number }
  | { phase: 'review'; draftId: string; durationMs: number; url: string; recovered: boolean }
  | { phase: 'blocked'; message: string };

type Review = Extract<RecorderState, { phase: 'review' }>;

/** A sentence kept as how to say it, so it is said in the language in use whenever it is shown. */
type Said = () => string;

const TROUBLE: Record<Trouble, Key> = { storageFull: 'error.storageFull', cannotSave: 'record.cannotSave', partLost: 'record.partLost' };

/** A draft read back from the outbox, playable. */
async function reviewOf(draftId: string, recovered: boolean, durationMs?: number): Promise<Review> {
  const { draft, data } = await readRecording(draftId);
  const url = URL.createObjectURL(new Blob([data], { type: draft.contentType }));
  return { phase: 'review', draftId, recovered, url, durationMs: durationMs ?? draft.updatedAt - draft.startedAt };
}

/**
 * The recorder screen's view of the page's recording engine (src/recording/engine.ts), which may
 * have started before React arrived, and what the screen adds to it: listening back to a take, and
 * saying in words why something failed. `meter` is the ref of the level bar.
 */
export function useRecorder(token: string) {
  const engine = useSyncExternalStore(recording.subscribe, recording.snapshot, recording.snapshot);
  const [review, setReview] = useState<Review>();
  const [warning, setWarning] = useState<Said>();
  const lang = useLanguage();

  // A take the engine has stopped, every chunk written, is read back to be listened to.
  useEffect(() => {
    if (engine.phase !== 'stopped') return;
    let live = true;
    reviewOf(engine.id, false, engine.durationMs).then(
      (taken) => {
        if (!live) return URL.revokeObjectURL(taken.url);
        setReview(taken);
        recording.release();
      },
      (error: unknown) => {
        if (!live) return;
        // The chunks stay on this phone as a draft; say so rather than just going back to idle.
        setWarning(() => () => describeFailure(error, FAILED.listen));
        recording.release();
      },
    );
    return () => {
      live = false;
    };
  }, [engine]);

  useEffect(() => {
    if (!review) return;
    return () => URL.revokeObjectURL(review.url);
  }, [review]);

  const start = useCallback(() => {
    setWarning(undefined);
    return recording.start(token);
  }, [token]);

  /** 'Record again' and 'Discard': the person chose to drop this take. */
  const discard = useCallback(async (draftId: string) => {
    await discardRecording(draftId);
    setReview(undefined);
  }, []);

  const reset = useCallback(() => setReview(undefined), []);
  /** A draft left by a reload or crash, offered back for listening. */
  const listen = useCallback(async (draftId: string) => setReview(await reviewOf(draftId, true)), []);
  const meter = useCallback((element: HTMLElement | null) => recording.meterInto(element), []);

  // Said now, in the language in use (lang), so a change of language shows at once.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the sentences read the language in use; lang is what says it changed.
  const state = useMemo<RecorderState>(() => {
    if (review) return review;
    switch (engine.phase) {
      case 'recording':
      case 'stopped':
        return { phase: 'recording', startedAt: engine.startedAt };
      case 'blocked':
        return { phase: 'blocked', message: blockedMessage(engine.blocked) };
      default:
        return { phase: engine.phase };
    }
  }, [review, engine, lang]);
  const activeId = engine.phase === 'recording' || engine.phase === 'stopped' ? engine.id : undefined;
  const said = warning?.() ?? (engine.trouble && t(TROUBLE[engine.trouble]));
  return { state, warning: said, activeId, meter, start, stop: recording.stop, discard, reset, review: listen };
}
