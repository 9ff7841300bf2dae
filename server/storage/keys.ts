/** Owns the blob store's key layout: where a note's original upload and its converted M4A live. */
import { randomUUID } from 'node:crypto';

/** The folder each kind of key below starts with: a store's objects outside them are not MileNotes's. */
export const KEY_PREFIXES = ['originals/', 'converted/', 'uploads/'] as const;

/**
 * A fresh key for one upload of a note. The random suffix means two racing uploads of one id never
 * write the same object (the row insert picks the winner; the loser removes its copy). One flat
 * folder: a new file then needs only that folder synced, not a new folder per note too.
 */
export const newOriginalKey = (noteId: string, sha256: string): string => `originals/${noteId}.${sha256}.${randomHex12()}`;

/** 48 random bits as 12 hex digits: a UUID's first two groups (its version digit comes after). randomUUID draws from a cached pool, where randomBytes asked the system on every upload. */
function randomHex12(): string {
  const uuid = randomUUID();
  return uuid.slice(0, 8) + uuid.slice(9, 13);
}

/** The converted file's one place. The worker writes it before recording it, so deletion removes it by id too. */
export const convertedKey = (noteId: string): string => `converted/${noteId}.m4a`;

/**
 * One part of a resumable upload, named by where it starts and by the append that wrote it: an
 * append whose lease ran out can then never overwrite the part of the one that took over.
 */
export const uploadPartKey = (noteId: string, offset: number, owner: string): string => `uploads/${noteId}/${offset}-${owner}`;
