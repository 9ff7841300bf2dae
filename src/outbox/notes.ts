/** Note and outbox types shared by the recorder page, the service worker and the tests. */
import type { RecorderLink } from '../../contract/api.js';

/**
 * waiting: saved on this phone, to be uploaded; sending: an uploader has it right now;
 * delivered: the server confirmed it (2xx); failed: the server refused it (4xx), needs the person.
 * Which of them are still pending is the outbox's to say (isPending, src/outbox/states.ts).
 */
export const NOTE_STATES = ['waiting', 'sending', 'delivered', 'failed'] as const;
export type NoteState = (typeof NOTE_STATES)[number];

export interface OutboxNote {
  /** Made on the device (crypto.randomUUID) so a repeated PUT is recognised by the server. */
  id: string;
  token: string;
  marker: string;
  markerLabel: string;
  from: string;
  /** The recorder's actual mimeType, sent as Content-Type. */
  contentType: string;
  bytes: number;
  /** Hex SHA-256 of the audio, computed once at Send. */
  sha256: string;
  durationMs: number;
  createdAt: number;
  state: NoteState;
  attempts: number;
  /** Epoch ms before which an uploader leaves the note alone (backoff, Retry-After). */
  nextAttemptAt: number;
  /** HTTP status of the last attempt, 0 for a network error. */
  lastStatus?: number;
  /** A sentence for a person: the server's message or what went wrong (English; the fallback for lastCode). */
  lastError?: string;
  /**
   * Why, as a stable code a page can put in the sender's language: the server's `error` code
   * (link_full, too_large, ...) or one of the outbox's own (OUTBOX_CODE in outbox/codes.ts).
   * Any string a server sent: look it up with Object.hasOwn or a Map, never as a bare property.
   */
  lastCode?: string;
  deliveredAt?: number;
  /** The audio of a delivered note is freed after a while; the small record stays. */
  audioFreed?: boolean;
  /** A resumable upload of it was begun: the next attempt asks the server what it holds first. */
  uploadStarted?: boolean;
  /** Bytes the server last said it holds of this note (resumable uploads). */
  uploadOffset?: number;
  /**
   * The last thing the server said of the delivered note (heard where, or never playable), kept
   * so the phone shows it offline too (src/recorder/noteNews.ts writes it; the outbox keeps it).
   */
  news?: NoteNews;
}

/**
 * What the server says of a delivered note, once it has something: where the runner heard it
 * ('Mile 13', and the marker's id, which the page names in the sender's language); that it arrived
 * but cannot be played (its conversion failed for good); or that the server no longer knows it.
 */
export type NoteNews = { kind: 'heard'; at: string; marker?: string } | { kind: 'unplayable' } | { kind: 'gone' };

/** A recording in progress (or cut short by a reload or crash), its chunks stored apart. */
export interface RecordingDraft {
  id: string;
  token: string;
  contentType: string;
  startedAt: number;
  /** Last time a chunk was written: how long the partial note is. */
  updatedAt: number;
}

export interface AudioChunk {
  recordingId: string;
  seq: number;
  data: ArrayBuffer;
}

/**
 * What GET /api/r/:token answers; kept on the device so a link opened once works offline. A copy kept
 * by a version from before the server told its clock has no `clock`.
 */
export type LinkInfo = Omit<RecorderLink, 'clock'> & Partial<Pick<RecorderLink, 'clock'>>;

export interface CachedLink {
  token: string;
  /** The phone's clock when the answer came (its `clock` was the server's then). */
  savedAt: number;
  link: LinkInfo;
  /** The server said the link no longer works (revoked or replaced): the home screen's list says so offline too. */
  goneAt?: number;
  /**
   * The person took the runner off the home screen's list (src/homeScreen): kept as a mark, so the
   * server's list does not bring the runner back, until the link is opened again (saveLink writes afresh).
   */
  removedAt?: number;
}
