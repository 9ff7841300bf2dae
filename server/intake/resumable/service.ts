/**
 * Resumable note uploads (draft-ietf-httpbis-resumable-upload): creation through the note's own
 * PUT, offset retrieval (HEAD), append (PATCH), cancellation (DELETE) and expiry. Routes call
 * this; it calls the repository and the blob store. State lives only there, so any server can
 * continue an upload another one began, and a restart loses nothing that was reported.
 */
import { randomUUID } from 'node:crypto';
import type { NoteReceipt } from '../../../contract/api.js';
import { PARTIAL_UPLOAD_TYPE, UPLOAD_PROBLEM } from '../../../contract/uploadProtocol.js';
import { createLoop, type Loop } from '../../background/loop.js';
import type { LinkView } from '../../db/repository.js';
import type { UploadRow } from '../../db/upload-store.js';
import { isRefusal, refusal } from '../../http/refusals.js';
import { checkNote, checkSize, holdRoom, mediaTypeOf, type NoteRequest } from '../checks.js';
import { answerForExisting } from '../commit.js';
import type { IntakeDeps } from '../whole.js';
import { uploadPartKey } from '../../storage/keys.js';
import type { CutTolerantBody } from './body.js';
import { appendPart, createLocalHolders, LEASE_MS, takeLease, type AppendResult, type Lease } from './append.js';
import { completeUpload, discardUpload } from './complete.js';

const inconsistentLength = refusal[UPLOAD_PROBLEM.inconsistentLength];

/** The intake's deps (the per-link and per-address limits among them: an unfinished upload holds its room until it expires). */
export interface UploadServiceDeps extends IntakeDeps {
  expiryMs: number;
  /** The real clock (leases, expiry, the sweep): never the race's (IntakeDeps.raceNow stamps notes). */
  now?: () => number;
}

/** What a creation or append request ended with. */
export type UploadOutcome =
  | { kind: 'complete'; receipt: NoteReceipt }
  | { kind: 'partial'; offset: number; upload: UploadRow }
  /** The connection dropped: what arrived is stored; nobody reads this answer. */
  | { kind: 'cut'; offset: number };

export interface UploadState {
  offset: number;
  complete: boolean;
  length: number | null;
  expiresAt?: number;
}

/** Every request names the live link it came through; the recorder's routes checked it. */
export interface Creation extends NoteRequest {
  /** The client's address as the server trusts it (TRUST_PROXY), for the per-address rate. */
  address: string;
  uploadLength: number | undefined;
  complete: boolean;
  /** Read from the start of the request (see routes/uploads.ts), so a cut during the checks keeps what arrived. */
  body: CutTolerantBody | undefined;
  /** Called once the upload resource exists, before the body is read (the 104 interim response). */
  onResource?: (upload: UploadRow) => void;
}

export interface Append {
  link: LinkView;
  noteId: string;
  offset: number;
  complete: boolean;
  uploadLength: number | undefined;
  contentLength: number | undefined;
  contentType: string | undefined;
  body: CutTolerantBody | undefined;
}

export type UploadService = ReturnType<typeof createUploadService>;

export function createUploadService(deps: UploadServiceDeps) {
  const { repo, blobs, log } = deps;
  const now = deps.now ?? Date.now;
  const holders = createLocalHolders();
  const appendDeps = { uploads: repo.uploads, blobs, log, now };
  /**
   * Creations this server is checking, by note id, until their upload resource exists and they hold
   * its lease (or they were refused). A phone whose creation was cut asks HEAD at once, and the server
   * may still be checking the note then: a HEAD answering 'no upload' would have the phone send the
   * whole note again. Waiting for the lease too makes the HEAD end the creation's append and report
   * what it stored, rather than take the lease first and report 0.
   */
  const creating = new Map<string, Promise<void>>();

  /** This link's upload of the note, or 404: another link's upload is as good as missing. */
  async function uploadOf(linkId: string, noteId: string): Promise<UploadRow | undefined> {
    const upload = await repo.uploads.find(noteId.toLowerCase());
    return upload && upload.linkId === linkId ? upload : undefined;
  }

  /** Records a length learnt from this request; a different one than before is the draft's error. */
  async function settleLength(upload: UploadRow, length: number | undefined): Promise<void> {
    if (length === undefined) return;
    checkSize(length);
    if (upload.length !== null && upload.length !== length) throw inconsistentLength();
    if (length < upload.offset) throw inconsistentLength();
    if (upload.length === null) {
      await repo.uploads.setLength(upload.noteId, length);
      upload.length = length;
    }
  }

  /** Lets the body drain if the request is refused before it is used. */
  async function withBody<T>(body: CutTolerantBody | undefined, work: (body: CutTolerantBody | undefined) => Promise<T>): Promise<T> {
    try {
      return await work(body);
    } finally {
      body?.dispose();
    }
  }

  async function run(lease: Lease, body: CutTolerantBody | undefined, bodyOffset: number, mayOverlap: boolean, complete: boolean): Promise<UploadOutcome> {
    let result: AppendResult = { offset: lease.upload.offset, cut: false };
    if (body) result = await appendPart(appendDeps, lease, { body, bodyOffset, mayOverlap });
    if (result.cut) return { kind: 'cut', offset: result.offset };
    const upload = { ...lease.upload, offset: result.offset };
    if (!complete) return { kind: 'partial', offset: result.offset, upload };
    if (upload.length === null) {
      await repo.uploads.setLength(upload.noteId, result.offset);
      upload.length = result.offset;
    }
    if (upload.length !== result.offset) throw inconsistentLength();
    return { kind: 'complete', receipt: await completeUpload(deps, upload) };
  }

  /** A note PUT carrying Upload-Complete: the same checks as a whole PUT, then an upload resource. */
  const createUpload = (c: Creation, recorded: () => void): Promise<UploadOutcome> =>
    withBody(c.body, async (body) => {
      const checked = await checkNote(repo, c);
      if (checked.existing) return { kind: 'complete', receipt: answerForExisting(checked.existing, checked.linkId, checked.sha256) };
      if (c.complete && c.uploadLength !== undefined && c.contentLength !== undefined && c.uploadLength !== c.contentLength) throw inconsistentLength();
      const created = await repo.uploads.create({
        noteId: checked.noteId,
        linkId: checked.linkId,
        marker: checked.marker,
        from: checked.from,
        contentType: checked.contentType,
        sha256: checked.sha256,
        length: null,
        deviceId: checked.deviceId,
        createdAt: new Date(now()).toISOString(),
        expiresAt: now() + deps.expiryMs,
      });
      if (created) {
        // A new upload counts against the link and the address like a whole PUT, and keeps its
        // room until it completes (the stored note then counts itself) or expires.
        await holdRoom(deps.quota, c.address, c.link, checked, c.uploadLength ?? c.contentLength, deps.expiryMs).catch(async (err: unknown) => {
          await discardUpload(deps, checked.noteId, []);
          throw err;
        });
      }
      const upload = await uploadOf(checked.linkId, checked.noteId);
      // Same id, other bytes or other link: the same conflict a whole PUT gets.
      if (!upload || upload.sha256 !== checked.sha256) throw refusal.note_conflict();
      await settleLength(upload, c.uploadLength ?? (c.complete ? c.contentLength : undefined));
      c.onResource?.(upload);
      const lease = await takeLease(appendDeps, holders, checked.noteId);
      // Only now: a HEAD let go before this creation holds the lease could take it first and answer 0.
      recorded();
      try {
        return await run(lease, body, 0, true, c.complete);
      } finally {
        await lease.release();
      }
    });

  return {
    /** A note PUT carrying Upload-Complete: the same checks as a whole PUT, then an upload resource. */
    create: (c: Creation): Promise<UploadOutcome> => {
      const noteId = c.noteId.toLowerCase();
      let recorded!: () => void;
      const known = new Promise<void>((resolve) => (recorded = resolve));
      creating.set(noteId, known);
      const created = createUpload(c, recorded);
      void created.catch(() => undefined).finally(recorded);
      void known.then(() => creating.get(noteId) === known && creating.delete(noteId));
      return created;
    },

    /** HEAD: the offset the server holds. Ends a running append first, so the answer is never stale. */
    async state({ linkId }: LinkView, noteId: string): Promise<UploadState> {
      // A creation of this note still being checked on this server: its answer, not a premature 'none'.
      await creating.get(noteId.toLowerCase());
      const upload = await uploadOf(linkId, noteId);
      if (!upload) return finishedState(linkId, noteId);
      let lease: Lease;
      try {
        lease = await takeLease(appendDeps, holders, upload.noteId);
      } catch (err) {
        if (isRefusal(err, 'upload_not_found')) return finishedState(linkId, noteId);
        throw err;
      }
      await lease.release();
      const { offset, length, expiresAt } = lease.upload;
      return { offset, complete: false, length, expiresAt };
    },

    /** PATCH with application/partial-upload at Upload-Offset. */
    append: (a: Append): Promise<UploadOutcome> =>
      withBody(a.body, async (body) => {
        const { linkId } = a.link;
        if (mediaTypeOf(a.contentType) !== PARTIAL_UPLOAD_TYPE) throw refusal.not_partial_upload();
        // Gone while we waited for the lease: a racing append completed it, or it was cancelled.
        const missing = async () => {
          if ((await finishedState(linkId, a.noteId).catch(() => undefined))?.complete) return refusal[UPLOAD_PROBLEM.completedUpload]();
          return refusal.upload_not_found();
        };
        const upload = await uploadOf(linkId, a.noteId);
        if (!upload) throw await missing();
        const lease = await takeLease(appendDeps, holders, upload.noteId).catch(async (err: unknown) => {
          throw isRefusal(err, 'upload_not_found') ? await missing() : err;
        });
        try {
          const end = a.complete && a.contentLength !== undefined ? a.offset + a.contentLength : undefined;
          await settleLength(lease.upload, a.uploadLength ?? end);
          return await run(lease, body, a.offset, false, a.complete);
        } finally {
          await lease.release();
        }
      }),

    /** DELETE: the client gave up on this upload; its parts go. */
    async cancel({ linkId }: LinkView, noteId: string): Promise<void> {
      const upload = await uploadOf(linkId, noteId);
      if (!upload) throw refusal.upload_not_found();
      const lease = await takeLease(appendDeps, holders, upload.noteId);
      try {
        await discardUpload(deps, upload.noteId, await repo.uploads.parts(upload.noteId));
      } finally {
        await lease.release();
      }
    },

    /** Removes unfinished uploads past their expiry, rows and parts. Returns how many went. */
    async sweep(at = now()): Promise<number> {
      const owner = randomUUID();
      let removed = 0;
      for (const upload of await repo.uploads.expired(at, 100)) {
        if (!(await repo.uploads.lease(upload.noteId, owner, at, LEASE_MS))) continue;
        const parts = await repo.uploads.parts(upload.noteId);
        // A crash between committing the note and removing its upload leaves the note's original among the parts.
        const note = await repo.notes.find(upload.noteId);
        if (upload.leaseOwner) await blobs.delete(uploadPartKey(upload.noteId, upload.offset, upload.leaseOwner)).catch(() => {});
        await discardUpload(deps, upload.noteId, parts, note?.originalKey);
        removed++;
      }
      return removed;
    },

    /**
     * Resolves once the appends running in this process have stored and committed what arrived:
     * a stopping server waits for this before it closes the database, so an append its stop cut
     * off keeps its bytes and its offset.
     */
    async settle(): Promise<void> {
      await Promise.all([...holders.running.values()].map((running) => running.finished));
    },

    /** The loop that sweeps every `everyMs` (the first a sweep's time after the start), for the app's background work. */
    expiryLoop(everyMs: number): Loop {
      const round = async () => {
        await this.sweep().catch((err: unknown) => log.error({ err }, 'sweeping expired uploads failed'));
        return 'idle' as const;
      };
      return createLoop({ name: 'upload expiry', pollMs: everyMs, waitFirst: true, round, log });
    },
  };

  /** No upload row: either the note arrived (complete) or there is nothing here. */
  async function finishedState(linkId: string, noteId: string): Promise<UploadState> {
    const note = await repo.notes.find(noteId.toLowerCase());
    if (!note || note.linkId !== linkId) throw refusal.upload_not_found();
    return { offset: note.bytes, complete: true, length: note.bytes };
  }
}
