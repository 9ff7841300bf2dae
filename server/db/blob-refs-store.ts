/** Owns one question for the orphan sweep: which blob keys do rows still refer to (notes, and notes still waiting for conversion). */
import type { SqlDriver } from './driver.js';

export interface BlobRefStore {
  /** The keys among `keys` that a note's original_key or converted_key names. */
  referencedKeys(keys: readonly string[]): Promise<Set<string>>;
  /** Ids of notes whose conversion job is still open: their converted file may be written before its row says so. */
  notesAwaitingConversion(): Promise<Set<string>>;
}

/** Keys per query: far below PostgreSQL's 65535 parameters and SQLite's 32766. */
const BATCH = 500;

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
  };
}
