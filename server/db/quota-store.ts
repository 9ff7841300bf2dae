/**
 * Owns the quota rows of migrations 3 and 5: reservations of room on a link while a note streams
 * in, and the uploads each address started in the last window. Every limit is decided by the
 * database, so several servers on one database share it. Times are epoch milliseconds.
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
  now: number;
  /** Uploads started after this time count: now minus the window. */
  since: number;
  max: number;
}

export interface Admission {
  /** False when the address had already started `max` uploads since `since` (this one is not counted). */
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
  /**
   * The start time of the address's `max`-th latest upload after `since`: once that one leaves
   * the window the address has room again. Undefined when it has room now.
   */
  limitingStart(address: string, since: number, max: number): Promise<number | undefined>;
  /** Removes expired reservations, and address uploads (and idle address locks) from before `startedBefore`. */
  prune(now: number, startedBefore: number): Promise<void>;
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
  // The address's lock row serialises its admissions as link_quota_locks does a link's. Taken
  // before the link's lock in every transaction, so two admissions never wait on each other in turn.
  lockAddress:
    'INSERT INTO address_quota_locks (address, touched_at) VALUES (?, ?) ' +
    'ON CONFLICT (address) DO UPDATE SET touched_at = excluded.touched_at',
  countUpload:
    'INSERT INTO address_upload_starts (address, started_at) SELECT ?, ? ' +
    'WHERE (SELECT COUNT(*) FROM address_upload_starts WHERE address = ? AND started_at > ?) < ? RETURNING started_at',
  nthLatestStart:
    'SELECT started_at FROM address_upload_starts WHERE address = ? AND started_at > ? ORDER BY started_at DESC LIMIT 1 OFFSET ?',
  pruneReservations: 'DELETE FROM upload_reservations WHERE expires_at <= ?',
  pruneStarts: 'DELETE FROM address_upload_starts WHERE started_at <= ?',
  pruneAddressLocks: 'DELETE FROM address_quota_locks WHERE touched_at <= ?',
} as const;

export function createQuotaStore(sql: SqlDriver): QuotaStore {
  return {
    async admit(count, r) {
      const [, counted, , reserved] = await sql.batch([
        [SQL.lockAddress, [count.address, count.now]],
        [SQL.countUpload, [count.address, count.now, count.address, count.since, count.max]],
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
    async limitingStart(address, since, max) {
      const [row] = await sql.all(SQL.nthLatestStart, [address, since, max - 1]);
      return row ? Number(row.started_at) : undefined;
    },
    async prune(now, startedBefore) {
      await sql.batch([
        [SQL.pruneReservations, [now]],
        [SQL.pruneStarts, [startedBefore]],
        [SQL.pruneAddressLocks, [startedBefore]],
      ]);
    },
  };
}
