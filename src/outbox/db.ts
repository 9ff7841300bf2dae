/** Owns the recorder's IndexedDB database: its name, version, object stores and upgrades. */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { AudioChunk, CachedLink, OutboxNote, RecordingDraft } from './notes.js';

export const DB_NAME = 'milenotes';
export const DB_VERSION = 1;

export interface Lease {
  name: string;
  owner: string;
  expiresAt: number;
}

export interface OutboxSchema extends DBSchema {
  /** Every note sent from this device, undelivered ones being the single source of truth. */
  notes: { key: string; value: OutboxNote; indexes: { 'by-token': string } };
  /** Audio apart from the note record, so listing notes never loads megabytes. */
  audio: { key: string; value: { id: string; data: ArrayBuffer } };
  recordings: { key: string; value: RecordingDraft; indexes: { 'by-token': string } };
  chunks: { key: [string, number]; value: AudioChunk };
  links: { key: string; value: CachedLink };
  /** The uploader lease, used only where Web Locks are missing. */
  lease: { key: string; value: Lease };
}

export type OutboxDb = IDBPDatabase<OutboxSchema>;

let opening: Promise<OutboxDb> | undefined;

export function outboxDb(): Promise<OutboxDb> {
  opening ??= openDB<OutboxSchema>(DB_NAME, DB_VERSION, {
    upgrade(db, oldVersion) {
      if (oldVersion < 1) {
        db.createObjectStore('notes', { keyPath: 'id' }).createIndex('by-token', 'token');
        db.createObjectStore('audio', { keyPath: 'id' });
        db.createObjectStore('recordings', { keyPath: 'id' }).createIndex('by-token', 'token');
        db.createObjectStore('chunks', { keyPath: ['recordingId', 'seq'] });
        db.createObjectStore('links', { keyPath: 'token' });
        db.createObjectStore('lease', { keyPath: 'name' });
      }
    },
    // A newer page or worker wants to upgrade: let it, and reopen on next use.
    blocking(_current, _blocked, event) {
      (event.target as IDBDatabase).close();
      opening = undefined;
    },
    terminated() {
      opening = undefined;
    },
  }).catch((error: unknown) => {
    opening = undefined;
    throw error;
  });
  return opening;
}

/** For tests: close the connection so the database can be deleted. */
export async function closeOutboxDb(): Promise<void> {
  const current = opening;
  opening = undefined;
  if (current) (await current).close();
}
