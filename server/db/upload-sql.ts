/** The SQL of resumable uploads (tables in migrations/4-resumable-uploads.ts), in the dialect both databases accept. */
import { leasedQueue } from './leased-queue.js';

/** The append lease (./leased-queue.ts): one holder at a time across servers; free once it has run out or was released. */
export const UPLOAD_LEASE = leasedQueue({ table: 'uploads', id: 'note_id', until: 'lease_until', owner: 'lease_owner' });

/** Both statements of a commit carry the same guard, so in one transaction both apply or neither. */
const HELD_AT = 'note_id = ? AND lease_owner = ? AND upload_offset = ?';

export const UPLOAD_SQL = {
  find: 'SELECT * FROM uploads WHERE note_id = ?',
  create:
    'INSERT INTO uploads (note_id, link_id, marker, sender, content_type, sha256, upload_length, device_id, upload_offset, lease_owner, lease_until, created_at, expires_at) ' +
    'VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, NULL, 0, ?, ?) ON CONFLICT (note_id) DO NOTHING',
  release: UPLOAD_LEASE.handBack(),
  setLength: 'UPDATE uploads SET upload_length = ? WHERE note_id = ? AND upload_length IS NULL',
  addPart:
    'INSERT INTO upload_parts (note_id, part_offset, bytes, sha256, blob_key) ' +
    `SELECT note_id, upload_offset, CAST(? AS BIGINT), ?, ? FROM uploads WHERE ${HELD_AT}`,
  advance: `UPDATE uploads SET upload_offset = upload_offset + ? WHERE ${HELD_AT} RETURNING upload_offset`,
  parts: 'SELECT * FROM upload_parts WHERE note_id = ? ORDER BY part_offset',
  deleteParts: 'DELETE FROM upload_parts WHERE note_id = ?',
  deleteUpload: 'DELETE FROM uploads WHERE note_id = ?',
  expired: UPLOAD_LEASE.free('expires_at < ?', 'ORDER BY expires_at LIMIT ?'),
  ofAccount: 'SELECT * FROM uploads WHERE link_id IN (SELECT id FROM links WHERE runner_id IN (SELECT runner_id FROM entries WHERE account_id = ?))',
  pendingBytes: 'SELECT COALESCE(SUM(COALESCE(upload_length, upload_offset)), 0) AS bytes, COUNT(*) AS uploads FROM uploads WHERE link_id = ?',
} as const;
