/** Maps raw rows (either driver) to the repository's types. */
import type { DistanceUnit } from '../../src/shared/races.js';
import type { LinkView, NoteRow, NoteStatus, RaceRow } from './repository.js';

type Row = Record<string, unknown>;

const str = (v: unknown): string => String(v);
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
// pg returns BIGINT as a string; SQLite as a number.
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export const toRace = (r: Row): RaceRow => ({
  id: str(r.id),
  name: str(r.name),
  date: str(r.race_date),
  units: str(r.units).split(',') as DistanceUnit[],
});

export const toLink = (r: Row): LinkView & { linkId: string } => ({
  linkId: str(r.link_id),
  runnerName: str(r.display_name),
  race: toRace(r),
  revoked: r.revoked_at !== null && r.revoked_at !== undefined,
});

export const toNote = (r: Row): NoteRow => ({
  id: str(r.id),
  linkId: str(r.link_id),
  marker: str(r.marker),
  from: str(r.sender),
  contentType: str(r.content_type),
  bytes: Number(r.bytes),
  sha256: str(r.sha256),
  originalKey: str(r.original_key),
  receivedAt: str(r.received_at),
  status: str(r.status) as NoteStatus,
  convertedKey: strOrNull(r.converted_key),
  durationMs: numOrNull(r.duration_ms),
  failureReason: strOrNull(r.failure_reason),
});
