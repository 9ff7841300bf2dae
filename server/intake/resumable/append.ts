/**
 * Appending to an upload: one holder at a time (a lease row in the database, so it holds across
 * servers), the body streamed into a part blob that is durable before its row moves the offset.
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { holdLease } from '../../background/lease.js';
import { UPLOAD_HEARTBEAT_MS, UPLOAD_LEASE_MS } from '../../config/background.js';
import { MAX_NOTE_BYTES } from '../../../contract/limits.js';
import { UPLOAD_PROBLEM } from '../../../contract/uploadProtocol.js';
import type { UploadRow, UploadStore } from '../../db/upload-store.js';
import { isRefusal, refusal } from '../../http/refusals.js';
import { storeAudio, type StoredAudio } from '../audio.js';
import type { BlobStore } from '../../storage/blob-store.js';
import { uploadPartKey } from '../../storage/keys.js';
import { skipBytes, type CutTolerantBody } from './body.js';

const mismatchingOffset = refusal[UPLOAD_PROBLEM.mismatchingOffset];

/** A holder renews well before this runs out; a crashed holder frees the upload after it (server/config/background.ts). */
export const LEASE_MS = UPLOAD_LEASE_MS;
/**
 * Silence on a note body this long counts as a cut (the phone lost its signal); what arrived is
 * kept. Above the 20 s a one-bar phone goes silent and then goes on, with margin, and
 * below the connection's idle cut (IDLE_TIMEOUT_MS, 60 s), so this rule, which keeps the bytes, acts first.
 */
export const APPEND_IDLE_MS = 45_000;
/** How long a request waits for another server's append to finish before answering 503. */
const LEASE_WAIT_MS = 3_000;

export interface AppendDeps {
  uploads: UploadStore;
  blobs: BlobStore;
  log: FastifyBaseLogger;
  now?: () => number;
}

/** Appends running in this process, so a newer request for the same upload can end them at once. */
export interface LocalHolders {
  running: Map<string, { stop(): void; finished: Promise<void> }>;
}

export const createLocalHolders = (): LocalHolders => ({ running: new Map() });

export interface Lease {
  owner: string;
  upload: UploadRow;
  /** Set by the running append: ends its body when a newer request takes over. */
  stopBody?: () => void;
  /** Frees the upload for the next request; always called, in a finally. */
  release(): Promise<void>;
}

/**
 * Takes the upload's lease. An append still running here is ended first (the draft's
 * recommendation: the client has given up on it); one on another server gets a few seconds.
 */
export async function takeLease(deps: AppendDeps, holders: LocalHolders, noteId: string): Promise<Lease> {
  const now = deps.now ?? Date.now;
  const owner = randomUUID();
  const deadline = now() + LEASE_WAIT_MS;
  for (;;) {
    const local = holders.running.get(noteId);
    if (local) {
      local.stop();
      await local.finished;
    }
    const before = await deps.uploads.find(noteId);
    if (!before) throw refusal.upload_not_found();
    if (await deps.uploads.lease(noteId, owner, now(), LEASE_MS)) {
      // A holder whose lease ran out (a crashed server) may have left a part blob no row names.
      if (before.leaseOwner && before.leaseUntil < now()) {
        await deps.blobs.delete(uploadPartKey(noteId, before.offset, before.leaseOwner)).catch(() => {});
      }
      const upload = (await deps.uploads.find(noteId))!;
      let finish!: () => void;
      const finished = new Promise<void>((resolve) => (finish = resolve));
      const lease: Lease = {
        owner,
        upload,
        release: async () => {
          try {
            await deps.uploads.release(noteId, owner);
          } finally {
            if (holders.running.get(noteId)?.finished === finished) holders.running.delete(noteId);
            finish();
          }
        },
      };
      holders.running.set(noteId, { stop: () => lease.stopBody?.(), finished });
      return lease;
    }
    if (now() > deadline) throw refusal.upload_busy(Math.ceil(LEASE_MS / 1000 / 4));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface AppendRequest {
  /** Watched from the start of the request, so a cut during the checks keeps what arrived. */
  body: CutTolerantBody;
  /** Where the body starts in the note. */
  bodyOffset: number;
  /** Creation requests resend the note from 0: skip what the server has. A PATCH must match exactly. */
  mayOverlap: boolean;
}

export interface AppendResult {
  offset: number;
  /** The connection dropped (or went idle) before the body ended. */
  cut: boolean;
}

/** Streams one request body into a new part and commits it. The lease must be held. */
export async function appendPart(deps: AppendDeps, lease: Lease, req: AppendRequest): Promise<AppendResult> {
  const { upload, owner } = lease;
  const start = upload.offset;
  if (req.bodyOffset > start || (req.bodyOffset < start && !req.mayOverlap)) throw mismatchingOffset(start, req.bodyOffset);
  const room = (upload.length ?? MAX_NOTE_BYTES) - start;

  const { body } = req;
  lease.stopBody = body.stop;
  const now = deps.now ?? Date.now;
  // A lost lease needs no signal here: the part's commit below matches only while the lease is ours.
  const renew = (_at: number, leaseMs: number) => deps.uploads.renew(upload.noteId, owner, now(), leaseMs);
  const renewing = holdLease({ id: upload.noteId, what: 'upload', renew, log: deps.log }, { leaseMs: LEASE_MS, heartbeatMs: UPLOAD_HEARTBEAT_MS });
  const key = uploadPartKey(upload.noteId, start, owner);
  try {
    let stream: Readable = body.stream;
    if (req.bodyOffset < start) stream = stream.pipe(skipBytes(start - req.bodyOffset));
    let stored: StoredAudio;
    try {
      // The first bytes decide whether this is audio at all, as for a whole PUT.
      stored = await storeAudio(deps.blobs, stream, { key, maxBytes: Math.max(0, room), contentType: upload.contentType, sniff: start === 0, limit: 'part' });
    } catch (err) {
      await deps.blobs.delete(key).catch(() => {});
      // Too few bytes arrived before a cut to judge them: keep nothing, the client sends again.
      if (isRefusal(err, 'not_audio') && body.cut()) return { offset: start, cut: true };
      throw err;
    }
    if (stored.bytes === 0) {
      await deps.blobs.delete(key);
      return { offset: start, cut: body.cut() };
    }
    const offset = await deps.uploads.addPart(upload.noteId, owner, { offset: start, bytes: stored.bytes, sha256: stored.sha256, blobKey: key });
    if (offset === undefined) {
      // The lease ran out while this body trickled in and someone else moved on: drop this part.
      await deps.blobs.delete(key).catch(() => {});
      const current = await deps.uploads.find(upload.noteId);
      throw mismatchingOffset(current?.offset ?? start, req.bodyOffset);
    }
    return { offset, cut: body.cut() };
  } finally {
    renewing.release();
    lease.stopBody = undefined;
  }
}
