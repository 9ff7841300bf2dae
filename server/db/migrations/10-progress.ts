/**
 * Migration 10: progress shared by the runner's choice. `entries.share_progress` is off
 * until the runner turns it on; `entry_progress` keeps only the last accepted distance along the
 * course and its time (never a coordinate), `marker_passages` when each marker was passed. Times
 * are epoch milliseconds. Both go with their entry (ON DELETE CASCADE, as account deletion removes
 * entries through their runners rows).
 */
export const PROGRESS_TABLES = `
  ALTER TABLE entries ADD COLUMN share_progress INTEGER NOT NULL DEFAULT 0;
  CREATE TABLE entry_progress (
    entry_id TEXT PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
    distance_meters DOUBLE PRECISION NOT NULL,
    placed_at BIGINT NOT NULL
  );
  CREATE TABLE marker_passages (
    entry_id TEXT NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    marker_id TEXT NOT NULL,
    passed_at BIGINT NOT NULL,
    PRIMARY KEY (entry_id, marker_id)
  )
`;
