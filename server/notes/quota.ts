/**
 * The upload limits as people meet them: room per link (notes and bytes) and uploads per address
 * in any span of the window, decided by the database (server/db/quota-store.ts) so several
 * servers share them, refused with 429, a Retry-After and a sentence the recorder shows as it is.
 */
import { randomUUID } from 'node:crypto';
import type { UploadLimits } from '../config.js';
import type { QuotaStore } from '../db/quota-store.js';
import { refusal } from '../http/refusals.js';

/** A reservation outlives any honest upload (3 MB at 2.5 KB/s is 20 minutes) and frees itself after a crash. */
const RESERVATION_MS = 60 * 60_000;
/** A full link stays full until the runner acts; the header only tells clients not to hurry. */
const LINK_FULL_RETRY_AFTER_S = 24 * 3600;
const PRUNE_EVERY_MS = 60_000;

export interface LinkToFill {
  linkId: string;
  noteId: string;
  runnerName: string;
}

export interface UploadQuota {
  /**
   * Counts the upload against its address and holds room for it on the link, in one transaction:
   * a 429 when the address has started too many this window or the link is full. Resolves to the
   * function that frees the room if the upload then fails; a stored note needs no release.
   * `holdMs`: how long the room stays held if nobody frees it (a resumable upload holds it until
   * it expires, so unfinished uploads count against the link).
   */
  admit(address: string, link: LinkToFill, bytes: number, holdMs?: number): Promise<() => Promise<void>>;
}

export function createUploadQuota(store: QuotaStore, limits: UploadLimits, now: () => number = Date.now): UploadQuota {
  let lastPrune = 0;
  const pruneNowAndThen = async (at: number, since: number) => {
    if (at - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = at;
    await store.prune(at, since);
  };

  return {
    async admit(address, link, bytes, holdMs = RESERVATION_MS) {
      const at = now();
      // A window that slides with the clock: an address never starts more than the limit in any
      // span of that length, where windows fixed to the clock let it start twice that across one's end.
      const since = at - limits.uploadWindowMs;
      await pruneNowAndThen(at, since);
      const id = randomUUID();
      const release = () => store.releaseNote(id);
      const { addressAdmitted, roomHeld } = await store.admit(
        { address, now: at, since, max: limits.uploadsPerAddress },
        { id, linkId: link.linkId, noteId: link.noteId, bytes, now: at, expiresAt: at + holdMs, maxNotes: limits.linkMaxNotes, maxBytes: limits.linkMaxBytes },
      );
      if (!addressAdmitted) {
        if (roomHeld) await release();
        // Racing uploads may have moved on since the refusal: with room again, a second will do.
        const limiting = await store.limitingStart(address, since, limits.uploadsPerAddress);
        const retryAfter = Math.max(1, Math.ceil(((limiting ?? since) + limits.uploadWindowMs - at) / 1000));
        throw refusal.address_rate_limited(retryAfter);
      }
      if (!roomHeld) {
        const usage = await store.usage(link.linkId, at);
        // Racing uploads may have moved the numbers since the refusal: call it a byte refusal only when bytes are what is over.
        const byCount = usage.bytes + bytes <= limits.linkMaxBytes;
        throw byCount ? refusal.link_full(link.runnerName, LINK_FULL_RETRY_AFTER_S) : refusal.link_storage_full(link.runnerName, LINK_FULL_RETRY_AFTER_S);
      }
      return release;
    },
  };
}
