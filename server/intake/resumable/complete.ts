/**
 * Completing an upload: its parts joined into one original (S3 cannot append, so parts are
 * separate objects until here), the SHA-256 checked, then the note committed exactly once.
 */
import { Readable } from 'node:stream';
import type { NoteReceipt } from '../../../contract/api.js';
import { MAX_NOTE_BYTES } from '../../../contract/limits.js';
import { sfBoolean, UPLOAD_HEADER } from '../../../contract/uploadProtocol.js';
import type { Repository } from '../../db/repository.js';
import type { UploadPart, UploadRow } from '../../db/upload-store.js';
import { commitNote, type CommitDeps } from '../commit.js';
import type { BlobStore } from '../../storage/blob-store.js';
import { newOriginalKey } from '../../storage/keys.js';

export interface CompleteDeps extends CommitDeps {
  repo: Pick<Repository, 'notes' | 'progress' | 'uploads'>;
  blobs: BlobStore;
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
  return commitNote(deps, {
    checked: upload,
    stored: whole,
    // Refused, or a whole PUT of the same note got there first: one note, and the upload goes.
    discard: async () => {
      if (whole.joined) await deps.blobs.delete(whole.key).catch(() => {});
      await discardUpload(deps, upload.noteId, parts);
    },
    // The note keeps the joined original, or the one part that is it.
    committed: () => discardUpload(deps, upload.noteId, parts, whole.key),
    refusalHeaders: { [UPLOAD_HEADER.complete]: sfBoolean(true) },
    logFields: { parts: parts.length },
  });
}
