/**
 * The words under a note that is not delivered: why (the server's refusal or the outbox's own
 * reason, in the language in use, from the note's lastCode) and, for a note held back by a limit,
 * when it will be tried again. Pure functions of the note, so NoteList stays a layout.
 */
import type { OutboxNote } from '../outbox/notes.js';
import { OUTBOX_CODE, type OutboxCode } from '../outbox/index.js';
import { clockTime, refusal, t, type Key } from '../i18n/index.js';

/** The catalogue key of each of the outbox's own reasons (src/outbox/codes.ts). */
export const OUTBOX_KEYS = {
  [OUTBOX_CODE.offline]: 'outbox.noConnection',
  [OUTBOX_CODE.serverBusy]: 'outbox.serverBusy',
  [OUTBOX_CODE.refused]: 'outbox.notAccepted',
  [OUTBOX_CODE.recordingMissing]: 'outbox.recordingMissing',
} as const satisfies Record<OutboxCode, Key>;

/** A wait this short is "less than a minute": a clock time would read as now. */
const SOON_MS = 60_000;

const isOutboxCode = (code: string): code is OutboxCode => Object.hasOwn(OUTBOX_KEYS, code);

/**
 * Why the note is not delivered, in the language in use: the outbox's reason or the server's
 * refusal by its code. For a code the page does not know: on a note still waiting (a retryable
 * answer, whose stored sentence is the outbox's own "server busy"), that reason in the language;
 * on a note refused for good, the server's own (English) sentence, stored as lastError.
 */
export function noteReason(note: Pick<OutboxNote, 'state' | 'lastCode' | 'lastError' | 'lastStatus'>, runner: string): string | undefined {
  const status = note.lastStatus ?? 0;
  const code = note.lastCode;
  const known = code !== undefined && isOutboxCode(code) ? OUTBOX_KEYS[code] : undefined;
  const key = known ?? (note.state === 'waiting' && code !== undefined && !refusal(code, undefined, { runner }) ? outboxKeyFor(status) : undefined);
  if (key === 'outbox.serverBusy' || key === 'outbox.notAccepted') return t(key, { status });
  if (key) return t(key);
  return refusal(code, note.lastError, { runner });
}

/** The outbox's reason for a retryable answer with no code it knows (src/outbox/replay.ts). */
const outboxKeyFor = (status: number) => OUTBOX_KEYS[status === 0 ? OUTBOX_CODE.offline : OUTBOX_CODE.serverBusy];

/**
 * When a note waiting after a failed attempt will be tried again; undefined for a note that has
 * not failed, or whose reason already says it (no connection: it goes when there is one). `now` and
 * the note's times are the phone's; `clockAt` says a phone time on the server's clock (./serverClock.ts).
 */
export function nextTry(
  note: Pick<OutboxNote, 'state' | 'lastCode' | 'nextAttemptAt'>,
  online: boolean,
  now: number,
  clockAt: (phoneMs: number) => number = (ms) => ms,
): string | undefined {
  if (note.state !== 'waiting' || note.lastCode === undefined || note.lastCode === OUTBOX_CODE.offline) return undefined;
  // Offline, nothing is tried whatever the backoff says; the page tries again once it is back.
  if (!online) return t('wait.whenOnline');
  return note.nextAttemptAt - now < SOON_MS ? t('wait.soon') : t('wait.at', { time: clockTime(clockAt(note.nextAttemptAt)) });
}
