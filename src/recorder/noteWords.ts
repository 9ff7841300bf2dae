/**
 * The words under a note that is not delivered: why (the server's refusal or the outbox's own
 * reason, in the language in use, from the note's lastCode) and, for a note held back by a limit,
 * when it will be tried again. Pure functions of the note, so NoteList stays a layout.
 */
import type { OutboxNote } from '../shared/notes.js';
import { OUTBOX_CODE, type OutboxCode } from '../shared/outbox/index.js';
import { clockTime, refusal, t, type Key } from './i18n/index.js';

/** The catalogue key of each of the outbox's own reasons (src/shared/outbox/codes.ts). */
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
 * refusal by its code; the stored (English) sentence for a code the page does not know.
 */
export function noteReason(note: Pick<OutboxNote, 'lastCode' | 'lastError' | 'lastStatus'>, runner: string): string | undefined {
  const code = note.lastCode;
  if (code !== undefined && isOutboxCode(code)) {
    const key = OUTBOX_KEYS[code];
    const status = note.lastStatus ?? 0;
    return key === 'outbox.serverBusy' || key === 'outbox.notAccepted' ? t(key, { status }) : t(key);
  }
  return refusal(code, note.lastError, { runner });
}

/**
 * When a note waiting after a failed attempt will be tried again; undefined for a note that has
 * not failed, or whose reason already says it (no connection: it goes when there is one).
 */
export function nextTry(note: Pick<OutboxNote, 'state' | 'lastCode' | 'nextAttemptAt'>, online: boolean, now: number): string | undefined {
  if (note.state !== 'waiting' || note.lastCode === undefined || note.lastCode === OUTBOX_CODE.offline) return undefined;
  // Offline, nothing is tried whatever the backoff says; the page tries again once it is back.
  if (!online) return t('wait.whenOnline');
  return note.nextAttemptAt - now < SOON_MS ? t('wait.soon') : t('wait.at', { time: clockTime(note.nextAttemptAt) });
}
