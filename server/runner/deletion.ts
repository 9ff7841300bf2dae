/**
 * Deleting a runner's account: every row and every audio file, original and converted. Links are
 * revoked first so no new note can arrive; files go before rows, so a failure part-way leaves rows
 * that point at what is left and a retry of DELETE /api/me finishes the job (deleting a missing
 * file is not an error). The row deletion returns the notes it removed, and their files are
 * deleted once more: that catches an upload that was past the link check when we started.
 */
import type { BlobKeys, Repository } from '../db/repository.js';
import type { BlobStore } from '../storage/blob-store.js';
import { convertedKey } from '../storage/keys.js';

export function keysOf(notes: BlobKeys[]): Set<string> {
  const keys = new Set<string>();
  for (const note of notes) {
    keys.add(note.originalKey);
    if (note.convertedKey) keys.add(note.convertedKey);
    // The conversion worker writes here before it records the key: catch a conversion in flight.
    keys.add(convertedKey(note.noteId));
  }
  return keys;
}

export async function deleteRunnerAccount(repo: Repository, blobs: BlobStore, accountId: string, now = new Date()): Promise<{ files: number }> {
  await repo.deletion.revokeLinks(accountId, now.toISOString());
  // Unfinished resumable uploads: their parts are audio too, and their rows name the links.
  for (const upload of await repo.uploads.ofAccount(accountId)) {
    for (const part of await repo.uploads.parts(upload.noteId)) await blobs.delete(part.blobKey);
    await repo.uploads.remove(upload.noteId);
  }
  const listed = keysOf(await repo.deletion.blobKeys(accountId));
  for (const key of listed) await blobs.delete(key);
  const deleted = keysOf(await repo.deletion.deleteAccount(accountId));
  for (const key of deleted) if (!listed.has(key)) await blobs.delete(key);
  return { files: new Set([...listed, ...deleted]).size };
}
