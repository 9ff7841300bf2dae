/** The runner app's SQL (accounts, sessions, entries, plays, shares, account deletion), for runner-store.ts. */
const ENTRY_COLUMNS =
  'e.id AS entry_id, e.account_id, e.runner_id, e.created_at AS entry_created_at, u.display_name, ' +
  'r.id, r.name, r.race_date, r.units, ' +
  '(SELECT COUNT(*) FROM links l WHERE l.runner_id = e.runner_id AND l.revoked_at IS NULL) AS live_links';
const ENTRY_FROM = 'FROM entries e JOIN runners u ON u.id = e.runner_id JOIN races r ON r.id = e.race_id';
const NOTE_COLUMNS = 'n.*, p.played_at, p.marker AS played_marker';
/** Notes of an entry: every note that arrived through any of the entry's links, old or new. */
const ENTRY_NOTES = 'FROM notes n JOIN links l ON l.id = n.link_id JOIN entries e ON e.runner_id = l.runner_id LEFT JOIN note_plays p ON p.note_id = n.id';
/** Everything of one account, for deletion: notes reached through the account's entries. */
const ACCOUNT_NOTE_IDS = 'SELECT n.id FROM notes n JOIN links l ON l.id = n.link_id JOIN entries e ON e.runner_id = l.runner_id WHERE e.account_id = ?';
const ACCOUNT_RUNNER_IDS = 'SELECT runner_id FROM entries WHERE account_id = ?';

export const RUNNER_SQL = {
  findAccountBySub: 'SELECT id, apple_sub, created_at FROM accounts WHERE apple_sub = ?',
  findAccount: 'SELECT id, apple_sub, created_at FROM accounts WHERE id = ?',
  insertAccount: 'INSERT INTO accounts (id, apple_sub, created_at) VALUES (?, ?, ?) ON CONFLICT (apple_sub) DO NOTHING',
  insertSession: 'INSERT INTO sessions (id, account_id, refresh_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
  // One UPDATE both checks and replaces the hash, so two uses of one refresh token cannot both win.
  rotateSession:
    'UPDATE sessions SET refresh_hash = ?, expires_at = ? WHERE refresh_hash = ? AND expires_at > ? RETURNING id, account_id',
  insertEntry: 'INSERT INTO entries (id, account_id, runner_id, race_id, created_at) VALUES (?, ?, ?, ?, ?)',
  listEntries: `SELECT ${ENTRY_COLUMNS} ${ENTRY_FROM} WHERE e.account_id = ? ORDER BY e.created_at, e.id`,
  getEntry: `SELECT ${ENTRY_COLUMNS} ${ENTRY_FROM} WHERE e.account_id = ? AND e.id = ?`,
  getEntryById: `SELECT ${ENTRY_COLUMNS} ${ENTRY_FROM} WHERE e.id = ?`,
  revokeEntryLinks: 'UPDATE links SET revoked_at = ? WHERE runner_id = ? AND revoked_at IS NULL',
  listEntryNotes: `SELECT ${NOTE_COLUMNS} ${ENTRY_NOTES} WHERE e.id = ? ORDER BY n.received_at, n.id`,
  findOwnedNote: `SELECT ${NOTE_COLUMNS}, e.id AS entry_id, e.account_id ${ENTRY_NOTES} WHERE n.id = ?`,
  findNoteWithPlay: `SELECT n.*, p.played_at, p.marker AS played_marker FROM notes n LEFT JOIN note_plays p ON p.note_id = n.id WHERE n.id = ?`,
  insertPlay: 'INSERT INTO note_plays (note_id, played_at, marker) VALUES (?, ?, ?) ON CONFLICT (note_id) DO NOTHING',
  insertShare: 'INSERT INTO shares (id, token_hash, account_id, entry_id, note_id, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  deleteShare: 'DELETE FROM shares WHERE id = ? AND account_id = ?',
  findShare: 'SELECT id, account_id, entry_id, note_id, created_at FROM shares WHERE token_hash = ?',
  revokeAccountLinks: `UPDATE links SET revoked_at = ? WHERE revoked_at IS NULL AND runner_id IN (${ACCOUNT_RUNNER_IDS})`,
  accountBlobKeys: `SELECT n.id, n.original_key, n.converted_key FROM notes n WHERE n.id IN (${ACCOUNT_NOTE_IDS})`,
  /** Children first, so foreign keys hold at every step; deleting the runners rows cascades to entries. */
  deleteAccount: [
    `DELETE FROM note_plays WHERE note_id IN (${ACCOUNT_NOTE_IDS})`,
    `DELETE FROM jobs WHERE note_id IN (${ACCOUNT_NOTE_IDS})`,
    'DELETE FROM shares WHERE account_id = ?',
    // RETURNING: a note that slipped in after the files were listed still gets its files deleted.
    `DELETE FROM notes WHERE id IN (${ACCOUNT_NOTE_IDS}) RETURNING id, original_key, converted_key`,
    `DELETE FROM links WHERE runner_id IN (${ACCOUNT_RUNNER_IDS})`,
    `DELETE FROM runners WHERE id IN (${ACCOUNT_RUNNER_IDS})`,
    'DELETE FROM sessions WHERE account_id = ?',
    'DELETE FROM accounts WHERE id = ?',
  ],
} as const;
