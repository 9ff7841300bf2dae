/**
 * Migration 8: what the runner's app syncs by. Every change to an entry's notes (a note added,
 * converted or failed, removed) takes the next number of its `runners` row's `change_seq`; the
 * note keeps the number of its latest change, and a removed note leaves a row in `note_removals`
 * (its id and the number of its removal), so "what changed since N" is two indexed reads. The
 * counter lives on the runners row (one per entry) so the row lock orders the changes of one entry
 * by commit (a number seen means every lower one is committed) without serialising other entries.
 */
export const NOTE_CHANGE_TABLES = `
  ALTER TABLE runners ADD COLUMN change_seq BIGINT NOT NULL DEFAULT 0;
  ALTER TABLE notes ADD COLUMN change_seq BIGINT NOT NULL DEFAULT 0;
  CREATE INDEX notes_by_change ON notes (link_id, change_seq);
  CREATE TABLE note_removals (
    note_id TEXT PRIMARY KEY,
    runner_id TEXT NOT NULL REFERENCES runners(id) ON DELETE CASCADE,
    change_seq BIGINT NOT NULL,
    removed_at TEXT NOT NULL
  );
  CREATE INDEX note_removals_by_runner ON note_removals (runner_id, change_seq)
`;
