/**
 * Owns the quota rows of migrations 3, 5 and 7: reservations of room on a link while a resumable
 * upload is unfinished, and the notes each address started in the last window. Every limit is
 * decided by the database, so several servers on one database share it. Times are epoch milliseconds.
 */
import type { SqlDriver } from './driver.js';
import { createNoteStore } from './note-store.js';
import type { NewNote } from './types.js';

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
  /** The address as the limits group it (server/notes/address-key.ts). */
  address: string;
  now: number;
  /** Notes started after this time count: now minus the window. */
  since: number;
  max: number;
}

export interface Admission {
  /** False when the address had already started `max` other notes since `since` (this one is not counted). */
  addressAdmitted: boolean;
  /** False when the link had no room; when true, a reservation with the given id now holds it. */
  roomHeld: boolean;
}

/** What the limits say of a note before its bytes are read: nothing is counted or held. */
export interface Outlook {
  /** The address has started its budget of other notes in the window. */
  addressSpent: boolean;
  usage: LinkUsage;
}

/** The limits a whole note is taken under, checked in the transaction that stores it. */
export interface NoteLimits {
  count: AddressCount;
  maxNotes: number;
  maxBytes: number;
}

/** How taking a note ended: stored, already there (another request stored this id), or refused by a limit. */
export type Taken = 'stored' | 'exists' | 'address' | 'link_notes' | 'link_bytes';

export interface QuotaStore {
  /**
   * For a resumable upload's creation, in one transaction: counts the note against the address,
   * and holds room for it on the link unless stored notes plus live reservations would pass either
   * limit. Exact: admissions of one address, and of one link, are serialised by lock rows, so
   * racing uploads on any number of servers never overshoot. The reservation goes when the note is
   * stored (take), or with releaseNote when the upload fails.
   */
  admit(count: AddressCount, reservation: NoteReservation): Promise<Admission>;
  /** Before a whole note's bytes are read: would the limits refuse it now? Reads only. */
  outlook(count: AddressCount, linkId: string, noteId: string): Promise<Outlook>;
  /**
   * Stores the note with its conversion job in one transaction. With `limits` (a whole note), the
   * address and the link are checked and the note counted in that same transaction, serialised as
   * admit's are; without (a resumable upload, admitted at creation), its reservation goes instead.
   */
  take(note: NewNote, limits?: NoteLimits): Promise<Taken>;
  /** Frees the room of an upload that failed or was refused. */
  releaseNote(id: string): Promise<void>;
  usage(linkId: string, now: number): Promise<LinkUsage>;
  /**
   * The start time of the address's `max`-th latest note after `since`: once that one leaves the
   * window the address has room again. Undefined when it has room now.
   */
  limitingStart(address: string, since: number, max: number): Promise<number | undefined>;
  /** Removes expired reservations, and address starts (and idle address locks) from before `startedBefore`. */
  prune(now: number, startedBefore: number): Promise<void>;
}

// A reservation whose note is already stored is not counted: between the note's insert and the
// reservation's release the note would otherwise count twice and refuse a note that fits. Nor is
// the note's own (a whole PUT of a note whose resumable upload is unfinished).
const LIVE_RESERVATIONS =
  'FROM upload_reservations r WHERE r.link_id = ? AND r.expires_at > ? AND r.note_id <> ? ' +
  'AND NOT EXISTS (SELECT 1 FROM notes n WHERE n.id = r.note_id AND n.link_id = r.link_id)';
// The link's stored notes and live reservations, each counted and summed in one pass over an index
// (notes_by_link_bytes): the cost grows with the notes a link holds (LINK_MAX_NOTES), never past it.
const USAGE =
  '(SELECT stored.notes + held.notes AS notes, stored.bytes + held.bytes AS bytes FROM ' +
  '(SELECT COUNT(*) AS notes, COALESCE(SUM(bytes), 0) AS bytes FROM notes WHERE link_id = ?) AS stored, ' +
  `(SELECT COUNT(*) AS notes, COALESCE(SUM(r.bytes), 0) AS bytes ${LIVE_RESERVATIONS}) AS held) AS u`;
const usageParams = (linkId: string, now: number, noteId: string) => [linkId, linkId, now, noteId];
// Counted no further than the budget, so a venue's thousand starts are not read on every note.
const STARTED = '(SELECT COUNT(*) FROM (SELECT 1 FROM address_upload_starts WHERE address = ? AND started_at > ? LIMIT ?) AS w)';
const COUNTED = 'SELECT 1 FROM address_upload_starts WHERE address = ? AND note_id = ?';

const SQL = {
  // In PostgreSQL the upsert holds the link's lock row until commit; the next statement of the
  // transaction then sees every reservation committed before it (read committed reads afresh).
  // SQLite runs the batch as one IMMEDIATE transaction, which serialises it anyway.
  lockLink:
    'INSERT INTO link_quota_locks (link_id, touched_at) VALUES (?, ?) ' +
    'ON CONFLICT (link_id) DO UPDATE SET touched_at = excluded.touched_at',
  reserve:
    'INSERT INTO upload_reservations (id, link_id, note_id, bytes, expires_at) SELECT ?, ?, ?, ?, ? ' +
    `FROM ${USAGE} WHERE u.notes < ? AND u.bytes + ? <= ? RETURNING id`,
  release: 'DELETE FROM upload_reservations WHERE id = ?',
  releaseOfNote: 'DELETE FROM upload_reservations WHERE note_id = ?',
  usage: `SELECT u.notes, u.bytes FROM ${USAGE}`,
  outlook: `SELECT ${STARTED} AS started, CASE WHEN EXISTS (${COUNTED}) THEN 1 ELSE 0 END AS counted, u.notes, u.bytes FROM ${USAGE}`,
  // The address's lock row serialises its admissions as link_quota_locks does a link's. Taken
  // before the link's lock in every transaction, so two admissions never wait on each other in turn.
  lockAddress:
    'INSERT INTO address_quota_locks (address, touched_at) VALUES (?, ?) ' +
    'ON CONFLICT (address) DO UPDATE SET touched_at = excluded.touched_at',
  // A note the address already started (a retry, a resumable upload's completion) is admitted
  // without counting again: the budget counts people's notes, not a bad network's attempts.
  counted: COUNTED,
  countNote:
    'INSERT INTO address_upload_starts (address, note_id, started_at) SELECT ?, ?, ? ' +
    `WHERE NOT EXISTS (${COUNTED}) AND ${STARTED} < ? RETURNING started_at`,
  nthLatestStart:
    'SELECT started_at FROM address_upload_starts WHERE address = ? AND started_at > ? ORDER BY started_at DESC LIMIT 1 OFFSET ?',
  pruneReservations: 'DELETE FROM upload_reservations WHERE expires_at <= ?',
  pruneStarts: 'DELETE FROM address_upload_starts WHERE started_at <= ?',
  pruneAddressLocks: 'DELETE FROM address_quota_locks WHERE touched_at <= ?',
} as const;

const countParams = (c: AddressCount, noteId: string) => [c.address, noteId, c.now, c.address, noteId, c.address, c.since, c.max, c.max];

export function createQuotaStore(sql: SqlDriver): QuotaStore {
  return {
    async admit(count, r) {
      const [, already, counted, , reserved] = await sql.batch([
        [SQL.lockAddress, [count.address, count.now]],
        [SQL.counted, [count.address, r.noteId]],
        [SQL.countNote, countParams(count, r.noteId)],
        [SQL.lockLink, [r.linkId, r.now]],
        [SQL.reserve, [r.id, r.linkId, r.noteId, r.bytes, r.expiresAt, ...usageParams(r.linkId, r.now, r.noteId), r.maxNotes, r.bytes, r.maxBytes]],
      ]);
      return { addressAdmitted: (already ?? []).length + (counted ?? []).length > 0, roomHeld: (reserved ?? []).length === 1 };
    },
    async outlook(count, linkId, noteId) {
      const [row] = await sql.all(SQL.outlook, [count.address, count.since, count.max, count.address, noteId, ...usageParams(linkId, count.now, noteId)]);
      return {
        addressSpent: Number(row?.counted ?? 0) === 0 && Number(row?.started ?? 0) >= count.max,
        usage: { notes: Number(row?.notes ?? 0), bytes: Number(row?.bytes ?? 0) },
      };
    },
    take(note, limits) {
      return sql.transaction(async (tx) => {
        if (limits) {
          const { count } = limits;
          // Both locks first, address then link (admit's order); then nothing is written unless both limits pass.
          await tx.run(SQL.lockAddress, [count.address, count.now]);
          await tx.run(SQL.lockLink, [note.linkId, count.now]);
          const [row] = await tx.all(SQL.outlook, [count.address, count.since, count.max, count.address, note.id, ...usageParams(note.linkId, count.now, note.id)]);
          const counted = Number(row?.counted ?? 0) === 1;
          if (!counted && Number(row?.started ?? 0) >= count.max) return 'address';
          if (Number(row?.notes ?? 0) >= limits.maxNotes) return 'link_notes';
          if (Number(row?.bytes ?? 0) + note.bytes > limits.maxBytes) return 'link_bytes';
          if (!counted) await tx.run('INSERT INTO address_upload_starts (address, note_id, started_at) VALUES (?, ?, ?)', [count.address, note.id, count.now]);
        }
        const stored = await createNoteStore(tx).insert(note);
        if (stored) await tx.run(SQL.releaseOfNote, [note.id]);
        return stored ? 'stored' : 'exists';
      });
    },
    async releaseNote(id) {
      await sql.run(SQL.release, [id]);
    },
    async usage(linkId, now) {
      const [row] = await sql.all(SQL.usage, usageParams(linkId, now, ''));
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
