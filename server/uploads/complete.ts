/**
 * Completing an upload: its parts joined into one original (S3 cannot append, so parts are
 * separate objects until here), the SHA-256 checked, then the note committed exactly once.
 */
import { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { MAX_NOTE_BYTES, type NoteReceipt } from '../../src/shared/api.js';
import type { Repository } from '../db/repository.js';
import type { UploadPart, UploadRow } from '../db/upload-store.js';
import { ApiProblem } from '../http/problem.js';
import { answerForExisting, receiptOf } from '../notes/receive.js';
import type { BlobStore } from '../storage/blob-store.js';
import { newOriginalKey } from '../storage/keys.js';

export interface CompleteDeps {
  repo: Repository;
  blobs: BlobStore;
  log: FastifyBaseLogger;
  onAccepted: () => void;
}

/** Removes an upload's rows, then every part blob except `keep` (the note's original when it is a part). */
export async function discardUpload(deps: Pick<CompleteDeps, 'repo' | 'blobs' | 'log'>, noteId: string, parts: UploadPart[], keep?: string) {
  await deps.repo.uploads.remove(noteId);
  for (const part of parts) {
    if (part.blobKey === keep) continue;
    await deps.blobs.delete(part.blobKey).catch((err: unknown) => deps.log.warn({ err, key: part.blobKey }, 'could not delete an upload part'));
  }
}

async function* concatenated(blobs: BlobStore, parts: UploadPart[]): AsyncGenerator<Buffer> {
  for (const part of parts) {
    for await (const chunk of await blobs.get(part.blobKey)) yield chunk as Buffer;
  }
}

/** Joins the parts into one blob: the single part itself when there is one (the usual case), else a new object. */
async function joinParts(deps: CompleteDeps, upload: UploadRow, parts: UploadPart[]) {
  if (parts.length === 1) return { key: parts[0]!.blobKey, sha256: parts[0]!.sha256, bytes: parts[0]!.bytes, joined: false };
  const key = newOriginalKey(upload.noteId, upload.sha256);
  const stored = await deps.blobs.put(key, Readable.from(concatenated(deps.blobs, parts)), {
    maxBytes: MAX_NOTE_BYTES,
    contentType: upload.contentType,
  });
  return { key, sha256: stored.sha256, bytes: stored.bytes, joined: true };
}

/** Called with the lease held once the offset reached the length and the client said complete. */
export async function completeUpload(deps: CompleteDeps, upload: UploadRow): Promise<NoteReceipt> {
  const parts = await deps.repo.uploads.parts(upload.noteId);
  let expected = 0;
  for (const part of parts) {
    if (part.offset !== expected) throw new Error(`upload ${upload.noteId} has a gap at ${expected}`);
    expected += part.bytes;
  }
  const whole = await joinParts(deps, upload, parts);
  const dropJoined = () => (whole.joined ? deps.blobs.delete(whole.key).catch(() => {}) : Promise.resolve());
  if (whole.sha256 !== upload.sha256) {
    await dropJoined();
    await discardUpload(deps, upload.noteId, parts);
    throw new ApiProblem(400, 'digest_mismatch', 'The recording changed on the way (its checksum does not match). It will be sent again.', {
      'upload-complete': '?1',
    });
  }
  const note = {
    id: upload.noteId,
    linkId: upload.linkId,
    marker: upload.marker,
    from: upload.from,
    contentType: upload.contentType,
    bytes: whole.bytes,
    sha256: whole.sha256,
    originalKey: whole.key,
    receivedAt: new Date().toISOString(),
  };
  if (!(await deps.repo.notes.insert(note))) {
    // A whole PUT of the same note got there first: one note, and the same answer as a retry.
    await dropJoined();
    await discardUpload(deps, upload.noteId, parts);
    const winner = await deps.repo.notes.find(upload.noteId);
    if (!winner) throw new Error(`note ${upload.noteId} was neither inserted nor found`);
    return answerForExisting(winner, upload.linkId, whole.sha256);
  }
  await discardUpload(deps, upload.noteId, parts, whole.key);
  deps.log.info({ noteId: upload.noteId, bytes: whole.bytes, parts: parts.length }, 'note received (resumable)');
  deps.onAccepted();
  return receiptOf({ ...note, status: 'received', convertedKey: null, durationMs: null, failureReason: null });
}
