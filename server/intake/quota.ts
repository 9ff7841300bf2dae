/**
 * The upload limits as people meet them: room per link (notes and bytes) and notes per address
 * (an IPv4 address, or an IPv6 /64: ../http/client-key.ts) in any span of the window, decided by the
 * database (server/db/quota-store.ts) so several servers share them, refused with 429, a
 * Retry-After and a sentence the recorder shows as it is.
 *
 * A whole note is looked at before its bytes are read (refused early when a limit is already
 * reached) and checked and counted for good in the transaction that stores it: one transaction
 * per note. A resumable upload is counted at its creation and holds its room until it completes
 * or expires, so unfinished uploads count against the link.
 */
import { randomUUID } from 'node:crypto';
import type { UploadLimits } from '../config/index.js';
import type { AddressCount, LinkUsage, QuotaStore, Taken } from '../db/quota-store.js';
import type { QueuedNote } from '../db/types.js';
import { refusal } from '../http/refusals.js';
import { addressKey } from '../http/client-key.js';

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
   * A resumable upload's creation: counts the note against its address and holds room for it on
   * the link, in one transaction; a 429 when the address has started too many this window or the
   * link is full. Resolves to the function that frees the room if the upload then fails; a stored
   * note needs no release. `holdMs`: how long the room stays held if nobody frees it.
   */
  admit(address: string, link: LinkToFill, bytes: number, holdMs?: number): Promise<() => Promise<void>>;
  /** Before a whole note's bytes are read: the same 429 if a limit is already reached. Counts nothing. */
  precheck(address: string, link: LinkToFill, bytes: number): Promise<void>;
  /**
   * Stores the note and its job in one transaction; with `address` (a whole note) its limits are
   * checked and it is counted in that transaction, a 429 when one refuses it. Without, the note
   * was admitted at its upload's creation and its reservation goes. False: the id was taken.
   */
  take(note: QueuedNote, runnerName: string, address?: string): Promise<boolean>;
}

export function createUploadQuota(store: QuotaStore, limits: UploadLimits, now: () => number = Date.now): UploadQuota {
  let lastPrune = 0;
  /** The address count as of now, pruning old rows now and then. */
  const countFor = async (address: string): Promise<AddressCount> => {
    const at = now();
    // A window that slides with the clock: an address never starts more than the limit in any
    // span of that length, where windows fixed to the clock let it start twice that across one's end.
    const since = at - limits.uploadWindowMs;
    if (at - lastPrune >= PRUNE_EVERY_MS) {
      lastPrune = at;
      await store.prune(at, since);
    }
    return { address: addressKey(address), now: at, since, max: limits.uploadsPerAddress };
  };

  const addressRefusal = async (count: AddressCount) => {
    // Racing uploads may have moved on since the refusal: with room again, a second will do.
    const limiting = await store.limitingStart(count.address, count.since, count.max);
    const retryAfter = Math.max(1, Math.ceil(((limiting ?? count.since) + limits.uploadWindowMs - count.now) / 1000));
    return refusal.address_rate_limited(retryAfter);
  };
  // Racing uploads may have moved the numbers since the refusal: call it a byte refusal only when bytes are what is over.
  const linkRefusal = (runnerName: string, usage: LinkUsage, bytes: number) =>
    usage.bytes + bytes <= limits.linkMaxBytes
      ? refusal.link_full(runnerName, LINK_FULL_RETRY_AFTER_S)
      : refusal.link_storage_full(runnerName, LINK_FULL_RETRY_AFTER_S);

  const TAKEN_REFUSAL: Record<Exclude<Taken, 'stored' | 'exists'>, (count: AddressCount, runnerName: string) => Promise<Error> | Error> = {
    address: (count) => addressRefusal(count),
    link_notes: (_count, runnerName) => refusal.link_full(runnerName, LINK_FULL_RETRY_AFTER_S),
    link_bytes: (_count, runnerName) => refusal.link_storage_full(runnerName, LINK_FULL_RETRY_AFTER_S),
  };

  return {
    async admit(address, link, bytes, holdMs = RESERVATION_MS) {
      const count = await countFor(address);
      const id = randomUUID();
      const release = () => store.releaseNote(id);
      const { addressAdmitted, roomHeld } = await store.admit(count, {
        id,
        linkId: link.linkId,
        noteId: link.noteId,
        bytes,
        now: count.now,
        expiresAt: count.now + holdMs,
        maxNotes: limits.linkMaxNotes,
        maxBytes: limits.linkMaxBytes,
      });
      if (!addressAdmitted) {
        if (roomHeld) await release();
        throw await addressRefusal(count);
      }
      if (!roomHeld) throw linkRefusal(link.runnerName, await store.usage(link.linkId, count.now), bytes);
      return release;
    },

    async precheck(address, link, bytes) {
      const count = await countFor(address);
      const { addressSpent, usage } = await store.outlook(count, link.linkId, link.noteId, {
        bytes,
        maxNotes: limits.linkMaxNotes,
        maxBytes: limits.linkMaxBytes,
      });
      if (addressSpent) throw await addressRefusal(count);
      if (usage.notes >= limits.linkMaxNotes || usage.bytes + bytes > limits.linkMaxBytes) throw linkRefusal(link.runnerName, usage, bytes);
    },

    async take(note, runnerName, address) {
      const count = address === undefined ? undefined : await countFor(address);
      const taken = await store.take(note, count && { count, maxNotes: limits.linkMaxNotes, maxBytes: limits.linkMaxBytes });
      if (taken === 'stored' || taken === 'exists') return taken === 'stored';
      throw await TAKEN_REFUSAL[taken](count!, runnerName);
    },
  };
}
