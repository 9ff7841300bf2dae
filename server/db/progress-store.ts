/** Owns a runner's shared progress: whether the entry shares it, its last distance along the course and the markers it passed. */
import type { SqlDriver } from './driver.js';

/** The last accepted placement: metres along the course at an instant (epoch ms). */
export interface StoredPlacement {
  distanceMeters: number;
  at: number;
}

export interface StoredPassage {
  markerId: string;
  passedAt: number;
}

export interface EntryProgress {
  sharing: boolean;
  /** Undefined before the first accepted position. */
  placed?: StoredPlacement;
  /** The marker passed last, or null before the first. */
  lastPassage: StoredPassage | null;
}

export interface ProgressStore {
  setSharing(entryId: string, on: boolean): Promise<void>;
  /** The entry's progress (sharing or not: for its own runner). */
  ofEntry(entryId: string): Promise<EntryProgress>;
  /** The progress of the entry a link belongs to, only while its runner shares it; undefined otherwise. */
  sharedThroughLink(linkId: string): Promise<EntryProgress | undefined>;
  /**
   * Moves the entry from `from` (undefined: never placed) to `to` and records the passages, in one
   * transaction; false, with nothing changed, when another request moved it meanwhile.
   */
  advance(entryId: string, from: StoredPlacement | undefined, to: StoredPlacement, passages: readonly StoredPassage[]): Promise<boolean>;
}

const SQL = {
  setSharing: 'UPDATE entries SET share_progress = ? WHERE id = ?',
  sharing: 'SELECT share_progress FROM entries WHERE id = ?',
  entryOfLink: 'SELECT e.id FROM links l JOIN entries e ON e.runner_id = l.runner_id WHERE l.id = ? AND e.share_progress = 1',
  placed: 'SELECT distance_meters, placed_at FROM entry_progress WHERE entry_id = ?',
  lastPassage: 'SELECT marker_id, passed_at FROM marker_passages WHERE entry_id = ? ORDER BY passed_at DESC, marker_id DESC LIMIT 1',
  firstPlacement: 'INSERT INTO entry_progress (entry_id, distance_meters, placed_at) VALUES (?, ?, ?) ON CONFLICT (entry_id) DO NOTHING',
  // Compare-and-set on the time of the placement read: two batches at once cannot both move it.
  movePlacement: 'UPDATE entry_progress SET distance_meters = ?, placed_at = ? WHERE entry_id = ? AND placed_at = ?',
  passage: 'INSERT INTO marker_passages (entry_id, marker_id, passed_at) VALUES (?, ?, ?) ON CONFLICT (entry_id, marker_id) DO NOTHING',
} as const;

export function createProgressStore(sql: SqlDriver): ProgressStore {
  async function ofEntry(entryId: string, sharing?: boolean): Promise<EntryProgress> {
    const on = sharing ?? Number((await sql.all(SQL.sharing, [entryId]))[0]?.share_progress ?? 0) === 1;
    const [placed] = await sql.all(SQL.placed, [entryId]);
    const [last] = await sql.all(SQL.lastPassage, [entryId]);
    return {
      sharing: on,
      ...(placed && { placed: { distanceMeters: Number(placed.distance_meters), at: Number(placed.placed_at) } }),
      lastPassage: last ? { markerId: String(last.marker_id), passedAt: Number(last.passed_at) } : null,
    };
  }

  return {
    async setSharing(entryId, on) {
      await sql.run(SQL.setSharing, [on ? 1 : 0, entryId]);
    },
    ofEntry: (entryId) => ofEntry(entryId),
    async sharedThroughLink(linkId) {
      const [entry] = await sql.all(SQL.entryOfLink, [linkId]);
      return entry && ofEntry(String(entry.id), true);
    },
    async advance(entryId, from, to, passages) {
      // Not synced before the answer: race morning's 33 batches a second put their fsyncs in front of
      // the notes'. A placement lost with the machine's power comes back with the phone's next batch,
      // placed from the one before it, whose passages are interpolated again.
      return sql.transaction(async (tx) => {
        const moved = from
          ? await tx.run(SQL.movePlacement, [to.distanceMeters, to.at, entryId, from.at])
          : await tx.run(SQL.firstPlacement, [entryId, to.distanceMeters, to.at]);
        if (moved === 0) return false;
        for (const p of passages) await tx.run(SQL.passage, [entryId, p.markerId, p.passedAt]);
        return true;
      }, { durable: false });
    },
  };
}
