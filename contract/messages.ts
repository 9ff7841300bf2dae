/** Messages between the recorder page(s) and the service worker. */

/** Every page and the worker listen on this BroadcastChannel for outbox changes. */
export const OUTBOX_CHANNEL = 'milenotes-outbox';

/** The name of the workbox-background-sync Queue; its sync tag is `workbox-background-sync:<name>`. */
export const OUTBOX_SYNC_QUEUE = 'milenotes-outbox';
export const OUTBOX_SYNC_TAG = `workbox-background-sync:${OUTBOX_SYNC_QUEUE}`;

export type OutboxBroadcast =
  /** Some note or draft changed in IndexedDB: re-read. */
  | { type: 'outbox-changed'; noteId?: string }
  /** Upload progress of one note, 0..1; not stored. */
  | { type: 'outbox-progress'; noteId: string; fraction: number };

/** Worker → open pages (postMessage), because a page may have missed the broadcast. */
export interface NoteDeliveredMessage {
  type: 'note-delivered';
  noteId: string;
}

export function isNoteDelivered(data: unknown): data is NoteDeliveredMessage {
  return typeof data === 'object' && data !== null && (data as { type?: unknown }).type === 'note-delivered';
}

/** Page → worker: a marketing page has loaded; cache the rest of the site if no note is waiting (sw/laterCache.ts). */
export const CACHE_LATER = 'cache-later';
export interface CacheLaterMessage {
  type: typeof CACHE_LATER;
}

export function isCacheLater(data: unknown): data is CacheLaterMessage {
  return typeof data === 'object' && data !== null && (data as { type?: unknown }).type === CACHE_LATER;
}
