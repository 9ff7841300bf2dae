/** The SQL of race entries, their links and the notes that came through them, for entry-store.ts. */
import { NOTE_WITH_PLAY_COLUMNS, PLAY_JOIN } from './play-store.js';
import { RACE_COLUMNS } from './race-store.js';

const ENTRY_COLUMNS =
  'e.id AS entry_id, e.account_id, e.runner_id, e.created_at AS entry_created_at, u.display_name, ' +
  `${RACE_COLUMNS}, ` +
  '(SELECT COUNT(*) FROM links l WHERE l.runner_id = e.runner_id AND l.revoked_at IS NULL) AS live_links, ' +
  // The phones on its live link (server/db/device-store.ts): a revoked link's count for nothing.
  '(SELECT COUNT(*) FROM device_links d JOIN links l ON l.id = d.link_id WHERE l.runner_id = e.runner_id AND l.revoked_at IS NULL) AS link_phones';
const ENTRY_FROM = 'FROM entries e JOIN runners u ON u.id = e.runner_id JOIN races r ON r.id = e.race_id';
/** Notes of an entry: every note that arrived through any of the entry's links, old or new. */
const ENTRY_NOTES = `FROM notes n JOIN links l ON l.id = n.link_id JOIN entries e ON e.runner_id = l.runner_id ${PLAY_JOIN}`;

export const ENTRY_SQL = {
  insertEntry: 'INSERT INTO entries (id, account_id, runner_id, race_id, created_at) VALUES (?, ?, ?, ?, ?)',
  listEntries: `SELECT ${ENTRY_COLUMNS} ${ENTRY_FROM} WHERE e.account_id = ? ORDER BY e.created_at, e.id`,
  getEntry: `SELECT ${ENTRY_COLUMNS} ${ENTRY_FROM} WHERE e.account_id = ? AND e.id = ?`,
  getEntryById: `SELECT ${ENTRY_COLUMNS} ${ENTRY_FROM} WHERE e.id = ?`,
  // Without the links' and phones' counts: the sync asks this twice a minute for every app.
  getEntryToSync:
    'SELECT e.id AS entry_id, e.runner_id, r.starts_at, u.change_seq FROM entries e JOIN races r ON r.id = e.race_id JOIN runners u ON u.id = e.runner_id ' +
    'WHERE e.account_id = ? AND e.id = ?',
  revokeEntryLinks: 'UPDATE links SET revoked_at = ? WHERE runner_id = ? AND revoked_at IS NULL',
  listEntryNotes: `SELECT ${NOTE_WITH_PLAY_COLUMNS} ${ENTRY_NOTES} WHERE e.id = ? ORDER BY n.received_at, n.id`,
  findOwnedNote: `SELECT ${NOTE_WITH_PLAY_COLUMNS}, e.id AS entry_id, e.account_id ${ENTRY_NOTES} WHERE n.id = ?`,
} as const;
