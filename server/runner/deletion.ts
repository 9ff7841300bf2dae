/**
 * Deleting a runner's account: every row and every audio file, original and converted. Links are
 * revoked first so no new note can arrive; files go before rows, so a failure part-way leaves rows
 * that point at what is left and a retry of DELETE /api/me finishes the job (deleting a missing
 * file is not an error). Nothing is left unreferenced.
 */
import type { Repository } from '../db/repository.js';
import type { BlobStore } from '../storage/blob-store.js';

export async function deleteRunnerAccount(repo: Repository, blobs: BlobStore, accountId: string, now = new Date()): Promise<{ files: number }> {
  await repo.runner.revokeAccountLinks(accountId, now.toISOString());
  const keys = new Set<string>();
  for (const note of await repo.runner.accountBlobKeys(accountId)) {
    keys.add(note.originalKey);
    if (note.convertedKey) keys.add(note.convertedKey);
    // The conversion worker writes here before it records the key; catch a conversion in flight.
    keys.add(`converted/${note.noteId}.m4a`);
  }
  for (const key of keys) await blobs.delete(key);
  await repo.runner.deleteAccount(accountId);
  return { files: keys.size };
}
