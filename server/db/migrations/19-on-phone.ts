/**
 * Migration 19: when the runner's app first had a note's audio in full (`notes.on_phone_at`, ISO
 * time; null: not yet), so the friend who sent it can read "On Alex's phone" before it is heard.
 */
export const ON_PHONE_COLUMNS = `
  ALTER TABLE notes ADD COLUMN on_phone_at TEXT
`;
