/**
 * A runner removing one note: its files (original, converted, and one a conversion in flight may
 * be writing) go first, then its rows in one transaction that leaves the note's id as removed (the
 * app hears of it through `after`); the files the row deletion names are deleted once more, for a
 * conversion that finished in between. A failure part-way leaves rows a retry finishes with; a
 * repeated removal by the same runner answers as the first.
 */
import type { Repository } from '../db/repository.js';
import type { BlobStore } from '../storage/blob-store.js';
import { keysOf } from './deletion.js';

/** False when the account has no such note, removed or not: another runner's note is as good as missing. */
export async function deleteRunnerNote(repo: Repository, blobs: BlobStore, accountId: string, noteId: string, now = new Date()): Promise<boolean> {
  const note = await repo.entries.findOwnedNote(noteId);
  if (!note) {
    const runnerId = await repo.notes.removedFrom(noteId);
    return runnerId !== undefined && (await repo.entries.list(accountId)).some((e) => e.runnerId === runnerId);
  }
  if (note.accountId !== accountId) return false;
  const listed = keysOf([{ noteId, originalKey: note.originalKey, convertedKey: note.convertedKey }]);
  for (const key of listed) await blobs.delete(key);
  const deleted = await repo.notes.remove(noteId, now.toISOString());
  for (const key of keysOf(deleted ? [deleted] : [])) if (!listed.has(key)) await blobs.delete(key);
  return true;
}
