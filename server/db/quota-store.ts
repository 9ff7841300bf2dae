/**
 * Owns the quota rows of migration 3: reservations of room on a link while a note streams in,
 * and upload counts per address and window. Every limit is decided by the database, so several
 * servers on one database share it. Times are epoch milliseconds.
 */
import type { SqlDriver } from './driver.js';

export interface LinkUsage {
  /** Stored notes plus live reservations. */
  notes: number;
  bytes: number;
}

export interface NoteReservation {
  id: string;
  linkId: string;
  /** The note being uploaded: once its row exists, the note counts and the reservation no longer does. */
  noteId: string;
  /** The most the note may weigh: its Content-Length, or the per-note cap when unknown. */
  bytes: number;
  now: number;
  expiresAt: number;
  maxNotes: number;
  maxBytes: number;
}

export interface AddressCount {
  address: string;
  windowStart: number;
  max: number;
}

export interface Admission {
  /** False when the address had already started `max` uploads this window (this one is not counted). */
  addressAdmitted: boolean;
  /** False when the link had no room; when true, a reservation with the given id now holds it. */
  roomHeld: boolean;
}

export interface QuotaStore {
  /**
   * In one transaction: counts an upload from the address, and holds room for one note on the
   * link unless stored notes plus live reservations would pass either limit. Exact: reservations
   * of one link are serialised by a lock row, so racing uploads on any number of servers never
   * overshoot. A reservation stops counting once its note is stored, so a stored note needs no
   * release; a failed one does (releaseNote).
   */
  admit(count: AddressCount, reservation: NoteReservation): Promise<Admission>;
  /** Frees the room of an upload that failed or was refused. */
  releaseNote(id: string): Promise<void>;
  usage(linkId: string, now: number): Promise<LinkUsage>;
  /** Removes expired reservations and windows that ended before `windowStartBefore`. */
  prune(now: number, windowStartBefore: number): Promise<void>;
}

// A reservation whose note is already stored is not counted: between the note's insert and the
// reservation's release the note would otherwise count twice and refuse a note that fits.
const LIVE_RESERVATIONS =
  'FROM upload_reservations r WHERE r.link_id = ? AND r.expires_at > ? ' +
  'AND NOT EXISTS (SELECT 1 FROM notes n WHERE n.id = r.note_id AND n.link_id = r.link_id)';
const USAGE = {
  notes: `(SELECT COUNT(*) FROM notes WHERE link_id = ?) + (SELECT COUNT(*) ${LIVE_RESERVATIONS})`,
  bytes: `(SELECT COALESCE(SUM(bytes), 0) FROM notes WHERE link_id = ?) + (SELECT COALESCE(SUM(r.bytes), 0) ${LIVE_RESERVATIONS})`,
};

const SQL = {
  // In PostgreSQL the upsert holds the link's lock row until commit; the next statement of the
  // transaction then sees every reservation committed before it (read committed reads afresh).
  // SQLite runs the batch as one IMMEDIATE transaction, which serialises it anyway.
  lockLink:
    'INSERT INTO link_quota_locks (link_id, touched_at) VALUES (?, ?) ' +
    'ON CONFLICT (link_id) DO UPDATE SET touched_at = excluded.touched_at',
  reserve:
    'INSERT INTO upload_reservations (id, link_id, note_id, bytes, expires_at) SELECT ?, ?, ?, ?, ? ' +
    `WHERE ${USAGE.notes} < ? AND ${USAGE.bytes} + ? <= ? RETURNING id`,
  release: 'DELETE FROM upload_reservations WHERE id = ?',
  usage: `SELECT ${USAGE.notes} AS notes, ${USAGE.bytes} AS bytes`,
  countUpload:
    'INSERT INTO address_uploads (address, window_start, uploads) VALUES (?, ?, 1) ' +
    'ON CONFLICT (address, window_start) DO UPDATE SET uploads = address_uploads.uploads + 1 ' +
    'WHERE address_uploads.uploads < ? RETURNING uploads',
  pruneReservations: 'DELETE FROM upload_reservations WHERE expires_at <= ?',
  pruneWindows: 'DELETE FROM address_uploads WHERE window_start < ?',
} as const;

export function createQuotaStore(sql: SqlDriver): QuotaStore {
  return {
    async admit(count, r) {
      const [counted, , reserved] = await sql.batch([
        [SQL.countUpload, [count.address, count.windowStart, count.max]],
        [SQL.lockLink, [r.linkId, r.now]],
        [SQL.reserve, [r.id, r.linkId, r.noteId, r.bytes, r.expiresAt, r.linkId, r.linkId, r.now, r.maxNotes, r.linkId, r.linkId, r.now, r.bytes, r.maxBytes]],
      ]);
      return { addressAdmitted: (counted ?? []).length === 1, roomHeld: (reserved ?? []).length === 1 };
    },
    async releaseNote(id) {
      await sql.run(SQL.release, [id]);
    },
    async usage(linkId, now) {
      const [row] = await sql.all(SQL.usage, [linkId, linkId, now, linkId, linkId, now]);
      return { notes: Number(row?.notes ?? 0), bytes: Number(row?.bytes ?? 0) };
    },
    async prune(now, windowStartBefore) {
      await sql.batch([
        [SQL.pruneReservations, [now]],
        [SQL.pruneWindows, [windowStartBefore]],
      ]);
    },
  };
}
