/** Owns what a note's state means to whoever asks (replay, the worker, the page): which notes are pending, and when the next is due. */
import type { OutboxNote } from './notes.js';

/**
 * Still to reach the server: saved and waiting its turn, or with an uploader right now (or left
 * there by one that died). A delivered note is done; a failed one waits for the person, not an uploader.
 */
export const isPending = (note: Pick<OutboxNote, 'state'>): boolean => note.state === 'waiting' || note.state === 'sending';

/** When the earliest pending note may be tried again (backoff, Retry-After); undefined when none is pending. */
export function earliestDue(notes: readonly Pick<OutboxNote, 'state' | 'nextAttemptAt'>[]): number | undefined {
  const due = notes.filter(isPending).map((n) => n.nextAttemptAt);
  return due.length ? Math.min(...due) : undefined;
}

/**
 * No answer, or a gateway's 502/504: the way to the server failed, not the server. A venue's
 * proxies answer 502 when the link behind them drops.
 */
export const isNetworkTrouble = (status: number) => status === 0 || status === 502 || status === 504;

/** Waiting only because the way to the server failed: it goes the moment the server answers anything. */
export const waitsOnNetwork = (note: Pick<OutboxNote, 'state' | 'lastStatus'>): boolean =>
  note.state === 'waiting' && note.lastStatus !== undefined && isNetworkTrouble(note.lastStatus);

/**
 * While a note waits on the network, an uploader asks this often, with a header-only request,
 * whether the way is back (the browser's 'online' never fires when a venue's cell recovers); the
 * first answer sends every such note at once. Short enough that a note starts within 2 s of the
 * link coming back.
 */
export const COMEBACK_PROBE_MS = 1_500;
/**
 * A probe that got through while the notes it sent failed again is a flapping link, not a
 * comeback: the probes then space out, doubling up to this, so bodies are not pushed into it
 * every 1.5 s (nor the server's per-minute limit spent); the next delivery resets them.
 */
export const COMEBACK_PROBE_CAP_MS = 20_000;

/** The probe interval after a run: back to the shortest once a note got through, doubled after a false comeback. */
export function nextProbeInterval(current: number, run: { probe?: 'reached' | 'no answer'; delivered: readonly string[] }): number {
  if (run.delivered.length > 0) return COMEBACK_PROBE_MS;
  if (run.probe === 'reached') return Math.min(COMEBACK_PROBE_CAP_MS, current * 2);
  return current;
}

/** When an uploader should next look at the outbox: the earliest due note, or the next comeback probe. */
export function nextWake(
  notes: readonly Pick<OutboxNote, 'state' | 'nextAttemptAt' | 'lastStatus'>[],
  now: number,
  probeEvery = COMEBACK_PROBE_MS,
): number | undefined {
  const due = earliestDue(notes);
  if (!notes.some(waitsOnNetwork)) return due;
  return Math.min(due ?? Infinity, now + probeEvery);
}
