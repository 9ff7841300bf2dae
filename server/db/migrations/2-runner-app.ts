/**
 * Migration 2: the runner's app. Accounts by Apple `sub`, sessions (refresh tokens, hashed),
 * entries (an account's race; the entry's display name is its `runners` row, and all links of
 * the entry share that row), 'heard' receipts and keepsake shares (tokens stored hashed).
 */
export const RUNNER_APP_TABLES = `
  CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    apple_sub TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL
  );
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    refresh_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
  );
  CREATE INDEX sessions_by_account ON sessions (account_id);
  CREATE TABLE entries (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    runner_id TEXT NOT NULL UNIQUE REFERENCES runners(id) ON DELETE CASCADE,
    race_id TEXT NOT NULL REFERENCES races(id),
    created_at TEXT NOT NULL
  );
  CREATE INDEX entries_by_account ON entries (account_id, created_at);
  CREATE INDEX links_by_runner ON links (runner_id);
  CREATE TABLE note_plays (
    note_id TEXT PRIMARY KEY REFERENCES notes(id),
    played_at TEXT NOT NULL,
    marker TEXT NOT NULL
  );
  CREATE TABLE shares (
    id TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    entry_id TEXT NOT NULL REFERENCES entries(id),
    note_id TEXT REFERENCES notes(id),
    created_at TEXT NOT NULL
  );
  CREATE INDEX shares_by_account ON shares (account_id)
`;
