/**
 * Owns the quota rows of migrations 3, 5 and 7: reservations of room on a link while a resumable
 * upload is unfinished, and the notes each address started in the last window. Every limit is
 * decided by the database, so several servers on one database share it. Times are epoch milliseconds.
 */
import type { SqlDriver } from './driver.js';
import { insertNote } from './note-store.js';
import type { NewNote, QueuedNote } from './types.js';

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
  /** The address as the limits group it (server/http/client-key.ts). */
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
  /** Before a whole note's bytes are read: would the limits refuse a note of `room.bytes` now? Reads only. */
  outlook(count: AddressCount, linkId: string, noteId: string, room: { bytes: number; maxNotes: number; maxBytes: number }): Promise<Outlook>;
  /**
   * Stores the note with its conversion job in one transaction. With `limits` (a whole note), the
   * address and the link are checked and the note counted in that same transaction, serialised as
   * admit's are; without (a resumable upload, admitted at creation), its reservation goes instead.
   * Every note must come in here, not through notes.insert alone: the link's bound counts on it.
   * DeadlinesOutdated (nothing written) when the race's start moved since the note's deadline was worked out.
   */
  take(note: QueuedNote, limits?: NoteLimits): Promise<Taken>;
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
  lockLink: 'INSERT INTO link_quota_locks (link_id, touched_at) VALUES (?, ?) ' + 'ON CONFLICT (link_id) DO UPDATE SET touched_at = excluded.touched_at',
  reserve:
    'INSERT INTO upload_reservations (id, link_id, note_id, bytes, expires_at) SELECT ?, ?, ?, ?, ? ' +
    `FROM ${USAGE} WHERE u.notes < ? AND u.bytes + ? <= ? RETURNING id`,
  release: 'DELETE FROM upload_reservations WHERE id = ?',
  releaseOfNote: 'DELETE FROM upload_reservations WHERE note_id = ?',
  usage: `SELECT u.notes, u.bytes FROM ${USAGE}`,
  outlook: `SELECT ${STARTED} AS started, CASE WHEN EXISTS (${COUNTED}) THEN 1 ELSE 0 END AS counted, u.notes, u.bytes FROM ${USAGE}`,
  // The address's lock row serialises its admissions as link_quota_locks does a link's. Taken
  // before the link's lock in every transaction, so two admissions never wait on each other in turn.
  lockAddress: 'INSERT INTO address_quota_locks (address, touched_at) VALUES (?, ?) ' + 'ON CONFLICT (address) DO UPDATE SET touched_at = excluded.touched_at',
  // A note the address already started (a retry, a resumable upload's completion) is admitted
  // without counting again: the budget counts people's notes, not a bad network's attempts.
  counted: COUNTED,
  countNote:
    'INSERT INTO address_upload_starts (address, note_id, started_at) SELECT ?, ?, ? ' +
    `WHERE NOT EXISTS (${COUNTED}) AND ${STARTED} < ? RETURNING started_at`,
  // Each lock row also carries an upper bound of what it limits, raised by every note taken here:
  // while the bound is under the limit the truth is too, so only a bound at the limit (or unknown,
  // NULL) is counted afresh. Deleted notes and starts leaving the window only make it loose.
  // A whole note's two reads under the locks, each one statement (were two each).
  countedAndBound: `SELECT CASE WHEN EXISTS (${COUNTED}) THEN 1 ELSE 0 END AS counted, (SELECT started FROM address_quota_locks WHERE address = ?) AS started`,
  heldAndBound:
    `SELECT held.notes AS held_notes, held.bytes AS held_bytes, (SELECT notes FROM link_quota_locks WHERE link_id = ?) AS bound_notes, ` +
    `(SELECT bytes FROM link_quota_locks WHERE link_id = ?) AS bound_bytes FROM (SELECT COUNT(*) AS notes, COALESCE(SUM(r.bytes), 0) AS bytes ${LIVE_RESERVATIONS}) AS held`,
  // Both bounds in one read (one wait for the database's turn, not two).
  bounds:
    'SELECT (SELECT started FROM address_quota_locks WHERE address = ?) AS started, ' +
    '(SELECT notes FROM link_quota_locks WHERE link_id = ?) AS notes, (SELECT bytes FROM link_quota_locks WHERE link_id = ?) AS bytes',
  startedExactly: `SELECT ${STARTED} AS started`,
  storedExactly: 'SELECT COUNT(*) AS notes, COALESCE(SUM(bytes), 0) AS bytes FROM notes WHERE link_id = ?',
  setAddressBound: 'UPDATE address_quota_locks SET started = ? WHERE address = ?',
  // admit counts starts without keeping the bound: it is forgotten, and counted afresh next time.
  forgetAddressBound: 'UPDATE address_quota_locks SET started = NULL WHERE address = ?',
  setLinkBound: 'UPDATE link_quota_locks SET notes = ?, bytes = ? WHERE link_id = ?',
  raiseLinkBound: 'UPDATE link_quota_locks SET notes = notes + 1, bytes = bytes + ? WHERE link_id = ? AND notes IS NOT NULL',
  countStart: 'INSERT INTO address_upload_starts (address, note_id, started_at) VALUES (?, ?, ?)',
  nthLatestStart: 'SELECT started_at FROM address_upload_starts WHERE address = ? AND started_at > ? ORDER BY started_at DESC LIMIT 1 OFFSET ?',
  pruneReservations: 'DELETE FROM upload_reservations WHERE expires_at <= ?',
  pruneStarts: 'DELETE FROM address_upload_starts WHERE started_at <= ?',
  pruneAddressLocks: 'DELETE FROM address_quota_locks WHERE touched_at <= ?',
} as const;

const countParams = (c: AddressCount, noteId: string) => [c.address, noteId, c.now, c.address, noteId, c.address, c.since, c.max, c.max];

/**
 * A whole note's limits inside the transaction that stores it: both locks first, address then link
 * (admit's order), then the bounds, counted afresh only at the limit. Counts the note against its
 * address when both pass; writes nothing else but fresher bounds when one refuses.
 */
async function checkLimits(tx: SqlDriver, note: NewNote, { count, maxNotes, maxBytes }: NoteLimits): Promise<Taken | undefined> {
  await tx.run(SQL.lockAddress, [count.address, count.now]);
  await tx.run(SQL.lockLink, [note.linkId, count.now]);
  const [address] = await tx.all(SQL.countedAndBound, [count.address, note.id, count.address]);
  const counted = Number(address?.counted ?? 0) === 1;
  let started = 0;
  if (!counted) {
    started = address?.started == null ? count.max : Number(address.started);
    if (started >= count.max) {
      const [exact] = await tx.all(SQL.startedExactly, [count.address, count.since, count.max]);
      started = Number(exact?.started ?? 0);
      await tx.run(SQL.setAddressBound, [started, count.address]);
      if (started >= count.max) return 'address';
    }
  }
  const [link] = await tx.all(SQL.heldAndBound, [note.linkId, note.linkId, note.linkId, count.now, note.id]);
  const held = { notes: Number(link?.held_notes ?? 0), bytes: Number(link?.held_bytes ?? 0) };
  const fits = (s: LinkUsage) => s.notes + held.notes < maxNotes && s.bytes + held.bytes + note.bytes <= maxBytes;
  if (link?.bound_notes == null || !fits({ notes: Number(link.bound_notes), bytes: Number(link.bound_bytes) })) {
    const [exact] = await tx.all(SQL.storedExactly, [note.linkId]);
    const stored = { notes: Number(exact?.notes ?? 0), bytes: Number(exact?.bytes ?? 0) };
    await tx.run(SQL.setLinkBound, [stored.notes, stored.bytes, note.linkId]);
    if (!fits(stored)) return stored.notes + held.notes >= maxNotes ? 'link_notes' : 'link_bytes';
  }
  if (!counted) {
    await tx.run(SQL.countStart, [count.address, note.id, count.now]);
    await tx.run(SQL.setAddressBound, [started + 1, count.address]);
  }
  return undefined;
}

export function createQuotaStore(sql: SqlDriver): QuotaStore {
  return {
    async admit(count, r) {
      const [, already, counted, , , reserved] = await sql.batch([
        [SQL.lockAddress, [count.address, count.now]],
        [SQL.counted, [count.address, r.noteId]],
        [SQL.countNote, countParams(count, r.noteId)],
        [SQL.forgetAddressBound, [count.address]],
        [SQL.lockLink, [r.linkId, r.now]],
        [SQL.reserve, [r.id, r.linkId, r.noteId, r.bytes, r.expiresAt, ...usageParams(r.linkId, r.now, r.noteId), r.maxNotes, r.bytes, r.maxBytes]],
      ]);
      return { addressAdmitted: (already ?? []).length + (counted ?? []).length > 0, roomHeld: (reserved ?? []).length === 1 };
    },
    async outlook(count, linkId, noteId, room) {
      // The bounds first: a note that fits under them fits; one that does not is counted exactly.
      const [bounds] = await sql.all(SQL.bounds, [count.address, linkId, linkId]);
      if (
        bounds?.started != null &&
        Number(bounds.started) < count.max &&
        bounds.notes != null &&
        Number(bounds.notes) < room.maxNotes &&
        Number(bounds.bytes) + room.bytes <= room.maxBytes
      ) {
        return { addressSpent: false, usage: { notes: Number(bounds.notes), bytes: Number(bounds.bytes) } };
      }
      const [row] = await sql.all(SQL.outlook, [count.address, count.since, count.max, count.address, noteId, ...usageParams(linkId, count.now, noteId)]);
      return {
        addressSpent: Number(row?.counted ?? 0) === 0 && Number(row?.started ?? 0) >= count.max,
        usage: { notes: Number(row?.notes ?? 0), bytes: Number(row?.bytes ?? 0) },
      };
    },
    take(note, limits) {
      return sql.transaction(async (tx) => {
        const refused = limits && (await checkLimits(tx, note, limits));
        if (refused) return refused;
        const stored = await insertNote(tx, note);
        if (!stored) return 'exists';
        await tx.run(SQL.raiseLinkBound, [note.bytes, note.linkId]);
        await tx.run(SQL.releaseOfNote, [note.id]);
        return 'stored';
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
