/**
 * Owns the count of note uploads each address has open on this server. Open connections belong to
 * one process, so this count lives in memory; the rate of uploads is counted in the database.
 */
import type { onRequestAsyncHookHandler } from 'fastify';
import { isNoteUpload } from '../http/note-upload-mark.js';
import { refusal } from '../http/refusals.js';
import { addressKey } from '../http/client-key.js';

export interface OpenUploads {
  /** Takes a slot for the address; false when it already holds `max`. `release` must follow a true. */
  take(address: string): boolean;
  release(address: string): void;
  /** Open uploads of one address, for tests and metrics. */
  count(address: string): number;
}

export function createOpenUploads(max: number): OpenUploads {
  const open = new Map<string, number>();
  return {
    take(address) {
      const n = open.get(address) ?? 0;
      if (n >= max) return false;
      open.set(address, n + 1);
      return true;
    },
    release(address) {
      const n = (open.get(address) ?? 0) - 1;
      if (n > 0) open.set(address, n);
      else open.delete(address);
    },
    count: (address) => open.get(address) ?? 0,
  };
}

/**
 * An onRequest hook for the routes marked as note uploads, before any body is read: an address
 * holds a few uploads open at most, whole PUTs and appends alike, stalled or not; the next is a 429.
 */
export function capOpenUploads(open: OpenUploads): onRequestAsyncHookHandler {
  return async (req, reply) => {
    if (!isNoteUpload(req)) return;
    // Counted as the rate is: an IPv6 phone by its /64, so changing addresses inside it gains nothing.
    const address = addressKey(req.ip);
    if (!open.take(address)) throw refusal.too_many_open_uploads();
    // 'close' comes once the response is sent or the connection is gone, whichever is first.
    reply.raw.once('close', () => open.release(address));
  };
}
