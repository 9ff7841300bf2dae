/**
 * Owns the questions about which blob keys rows refer to: for the orphan sweep (notes, and notes
 * still waiting for conversion), and for backup and verify-storage (every note's objects with the
 * size and digest its row records, page by page; the races' pictures; which listed keys any row names).
 */
import type { SqlDriver } from './driver.js';
import { toNoteBlobs } from './rows.js';
import type { NoteBlobs, RecordedBlob } from './types.js';

export interface BlobRefStore {
  /** The keys among `keys` that a note's original_key or converted_key names. */
  referencedKeys(keys: readonly string[]): Promise<Set<string>>;
  /** Ids of notes whose conversion job is still open: their converted file may be written before its row says so. */
  notesAwaitingConversion(): Promise<Set<string>>;
  /** Up to `limit` notes with ids after `afterId` ('' for the first page), in id order: page on with the last id. */
  notesAfter(afterId: string, limit: number): Promise<NoteBlobs[]>;
  /**
   * The keys among `keys` that a row names (a note's original or conversion, a part of an
   * unfinished resumable upload, which a one-part upload's note keeps as its original, or a race's
   * picture), each with the size the row records (null when it records none).
   */
  namedKeys(keys: readonly string[]): Promise<Map<string, number | null>>;
  /** The races' own pictures (add-race --image), each with its race: a handful, not paged. Rows record neither size nor digest. */
  raceImages(): Promise<Array<{ raceId: string; image: RecordedBlob }>>;
}

/** Keys per query: far below PostgreSQL's 65535 parameters and SQLite's 32766. */
const BATCH = 500;

const NOTES_AFTER = 'SELECT id, original_key, bytes, sha256, converted_key, converted_bytes, converted_sha256 FROM notes WHERE id > ? ORDER BY id LIMIT ?';

const RACE_IMAGES = 'SELECT id, image_key FROM races WHERE image_key IS NOT NULL ORDER BY id';

export function createBlobRefStore(sql: SqlDriver): BlobRefStore {
  return {
    async referencedKeys(keys) {
      const found = new Set<string>();
      for (let i = 0; i < keys.length; i += BATCH) {
        const batch = keys.slice(i, i + BATCH);
        const marks = batch.map(() => '?').join(', ');
        const rows = await sql.all(
          `SELECT original_key AS k FROM notes WHERE original_key IN (${marks}) ` +
            `UNION SELECT converted_key AS k FROM notes WHERE converted_key IN (${marks})`,
          [...batch, ...batch],
        );
        for (const row of rows) found.add(String(row.k));
      }
      return found;
    },
    async notesAwaitingConversion() {
      return new Set((await sql.all('SELECT note_id FROM jobs')).map((row) => String(row.note_id)));
    },
    async notesAfter(afterId, limit) {
      return (await sql.all(NOTES_AFTER, [afterId, limit])).map(toNoteBlobs);
    },
    async namedKeys(keys) {
      const named = new Map<string, number | null>();
      for (let i = 0; i < keys.length; i += BATCH) {
        const batch = keys.slice(i, i + BATCH);
        const marks = batch.map(() => '?').join(', ');
        const rows = await sql.all(
          `SELECT original_key AS k, bytes AS b FROM notes WHERE original_key IN (${marks}) ` +
            `UNION ALL SELECT converted_key AS k, converted_bytes AS b FROM notes WHERE converted_key IN (${marks}) ` +
            `UNION ALL SELECT blob_key AS k, bytes AS b FROM upload_parts WHERE blob_key IN (${marks}) ` +
            `UNION ALL SELECT image_key AS k, NULL AS b FROM races WHERE image_key IN (${marks})`,
          [...batch, ...batch, ...batch, ...batch],
        );
        for (const row of rows) named.set(String(row.k), row.b === null || row.b === undefined ? null : Number(row.b));
      }
      return named;
    },
    async raceImages() {
      const rows = await sql.all(RACE_IMAGES);
      return rows.map((row) => ({ raceId: String(row.id), image: { key: String(row.image_key), bytes: null, sha256: null } }));
    },
  };
}
