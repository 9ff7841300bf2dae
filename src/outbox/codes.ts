/**
 * Why a note is not delivered, as a stable code beside its English sentence (OutboxNote.lastCode),
 * so a page can say it in the sender's language. A server refusal keeps the server's own `error`
 * code (link_full, too_large, digest_mismatch, rate_limited, ...); these are the outbox's own
 * reasons, for answers that carry no code.
 */
export const OUTBOX_CODE = {
  /** No answer came: the phone is offline, or the connection dropped. Tried again soon. */
  offline: 'offline',
  /** A status worth retrying (5xx, 408, 429, a gateway's 502/504) without a code. Tried again later. */
  serverBusy: 'server_busy',
  /** A refusal (4xx) without a code, e.g. a proxy's page: the note needs the person. */
  refused: 'refused',
  /** The note's audio is no longer on this phone: it must be recorded again. */
  recordingMissing: 'recording_missing',
} as const;

export type OutboxCode = (typeof OUTBOX_CODE)[keyof typeof OUTBOX_CODE];
