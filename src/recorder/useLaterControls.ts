/**
 * Loads the recorder's controls for after a first note (./laterControls.tsx) once one could show,
 * never before: a friend's first visit gets to the Record button without them. Loaded once per
 * page; a load that failed (no signal, and the worker has no copy yet) is tried again when the
 * phone is back online.
 */
import { useEffect, useState, type ComponentType } from 'react';
import type { LaterControlsProps } from './laterControls.js';

type LaterControls = ComponentType<LaterControlsProps>;

let loaded: LaterControls | undefined;
let loading: Promise<LaterControls> | undefined;

function load(): Promise<LaterControls> {
  loading ??= import('./laterControls.js').then(
    (m) => (loaded = m.default),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** The controls' component once `wanted` and loaded; undefined until then. */
export function useLaterControls(wanted: boolean): LaterControls | undefined {
  const [component, setComponent] = useState<LaterControls | undefined>(() => loaded);
  const [attempt, setAttempt] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: attempt is the retry: coming back online bumps it and the load is tried again.
  useEffect(() => {
    if (!wanted || component) return;
    let live = true;
    const again = () => setAttempt((n) => n + 1);
    load().then(
      (c) => live && setComponent(() => c),
      () => live && addEventListener('online', again, { once: true }),
    );
    return () => {
      live = false;
      removeEventListener('online', again);
    };
  }, [wanted, component, attempt]);
  return component;
}
