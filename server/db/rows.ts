/** Maps raw rows (either driver) to the domain types; column names are known only here and in the SQL. */
import { markersFor } from '../../contract/markers.js';
import type { DistanceUnit } from '../../contract/races.js';
import type {
  Account,
  BlobKeys,
  Entry,
  EntryNote,
  LinkListing,
  LinkView,
  NoteBlobs,
  NoteRow,
  NoteStatus,
  Race,
  RaceChange,
  RaceRow,
  Row,
  Share,
  StoredCourse,
} from './types.js';

const str = (v: unknown): string => String(v);
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
// pg returns BIGINT as a string; SQLite as a number.
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export const toRace = (r: Row): RaceRow => ({
  id: str(r.id),
  name: str(r.name),
  date: str(r.race_date),
  units: str(r.units).split(',') as DistanceUnit[],
  timezone: str(r.time_zone),
  start: str(r.local_start),
  startsAt: str(r.starts_at),
});

/** A race's own fields (the catalogue's row, without markers or course): what its history keeps and the admin CLI prints. */
export const raceRowOf = ({ id, name, date, units, timezone, start, startsAt }: RaceRow): RaceRow => ({ id, name, date, units, timezone, start, startsAt });

/** A catalogue row: the race, with its markers placed where course_markers (JSON) has their points. */
export function toCataloguedRace(r: Row): Race {
  const race = toRace(r);
  const points = new Map((r.course_markers ? (JSON.parse(str(r.course_markers)) as StoredCourse['markers']) : []).map((p) => [p.id, p]));
  return {
    ...race,
    hasCourse: r.course_markers !== null && r.course_markers !== undefined,
    markers: markersFor(race.units).map((m) => {
      const point = points.get(m.id);
      return point ? { ...m, lat: point.lat, lon: point.lon } : m;
    }),
  };
}

/** A line of the catalogue's history (migration 15): the race before and after as JSON. */
export const toRaceChange = (r: Row): RaceChange => ({
  raceId: str(r.race_id),
  at: str(r.changed_at),
  by: str(r.changed_by),
  action: str(r.action) as RaceChange['action'],
  before: JSON.parse(str(r.before_json)) as RaceRow,
  ...(r.after_json === null || r.after_json === undefined ? {} : { after: JSON.parse(str(r.after_json)) as RaceRow }),
});

export const toLink = (r: Row): LinkView => ({
  linkId: str(r.link_id),
  runnerName: str(r.display_name),
  race: toRace(r),
  revoked: r.revoked_at !== null && r.revoked_at !== undefined,
});

export const toLinkListing = (r: Row): LinkListing => ({
  linkId: str(r.link_id),
  runnerId: str(r.runner_id),
  runnerName: str(r.display_name),
  raceId: str(r.race_id),
  raceName: str(r.race_name),
  createdAt: str(r.created_at),
  revokedAt: strOrNull(r.revoked_at),
  notes: Number(r.notes),
  madeBy: Number(r.entries) > 0 ? 'app' : 'admin',
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
  deviceId: strOrNull(r.device_id),
  status: str(r.status) as NoteStatus,
  convertedKey: strOrNull(r.converted_key),
  durationMs: numOrNull(r.duration_ms),
  failureReason: strOrNull(r.failure_reason),
  onPhoneAt: strOrNull(r.on_phone_at),
});

export const toAccount = (r: Row): Account => ({ id: str(r.id), appleSub: str(r.apple_sub), createdAt: str(r.created_at) });

export const toEntry = (r: Row): Entry => ({
  id: str(r.entry_id),
  accountId: str(r.account_id),
  runnerId: str(r.runner_id),
  displayName: str(r.display_name),
  race: toRace(r),
  createdAt: str(r.entry_created_at),
  linkActive: Number(r.live_links) > 0,
  linkPhones: Number(r.link_phones ?? 0),
});

export const toEntryNote = (r: Row): EntryNote => ({
  ...toNote(r),
  play: r.played_at === null || r.played_at === undefined ? null : { playedAt: str(r.played_at), marker: str(r.played_marker) },
});

export const toBlobKeys = (r: Row): BlobKeys => ({
  noteId: str(r.id),
  originalKey: str(r.original_key),
  convertedKey: strOrNull(r.converted_key),
});

export const toNoteBlobs = (r: Row): NoteBlobs => ({
  noteId: str(r.id),
  original: { key: str(r.original_key), bytes: numOrNull(r.bytes), sha256: strOrNull(r.sha256) },
  ...(r.converted_key !== null &&
    r.converted_key !== undefined && {
      converted: { key: str(r.converted_key), bytes: numOrNull(r.converted_bytes), sha256: strOrNull(r.converted_sha256) },
    }),
});

export const toShare = (r: Row): Share => ({
  id: str(r.id),
  accountId: str(r.account_id),
  entryId: str(r.entry_id),
  noteId: strOrNull(r.note_id),
  createdAt: str(r.created_at),
});
