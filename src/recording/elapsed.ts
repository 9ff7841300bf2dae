import { MAX_RECORDING_MS } from '../../contract/limits.js';

/** How long a recording has run, as its clock on screen says it ('0:07'); never past the one-minute cap. */
export function elapsedText(startedAt: number, now: number): string {
  const elapsed = Math.max(0, Math.min(now - startedAt, MAX_RECORDING_MS));
  const seconds = Math.floor(elapsed / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}
