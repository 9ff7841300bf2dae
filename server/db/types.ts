/**
 * The data layer's vocabulary: the raw row either database returns and the domain types the
 * stores hand out. A leaf module: it imports nothing from the stores, so anything may import it.
 */
import type { Position } from 'geojson';
import type { Marker } from '../../contract/markers.js';
import type { DistanceUnit } from '../../contract/races.js';

/** One row as a driver returns it: column name to value (pg gives BIGINT as a string). */
export type Row = Record<string, unknown>;

export type NoteStatus = 'received' | 'converted' | 'failed';

export interface RaceRow {
  id: string;
  name: string;
  /** Race day, local to the race (YYYY-MM-DD). */
  date: string;
  units: DistanceUnit[];
  /** The city's IANA time zone. */
  timezone: string;
  /** Local start time, HH:MM on a 24-hour clock. */
  start: string;
  /** The start as an instant, ISO 8601 in UTC (raceClock.raceStartsAt of the three above). */
  startsAt: string;
}

/** A marker of a race; with its point on the ground once the race has a course. */
export interface RaceMarker extends Marker {
  lat?: number;
  lon?: number;
}

/** A race of the catalogue as listed: its markers, placed when it has a course. */
export interface Race extends RaceRow {
  hasCourse: boolean;
  markers: RaceMarker[];
}

/** A course ready to store: the whole track, the app's copy, its length and each marker's point. */
export interface StoredCourse {
  line: Position[];
  lengthMeters: number;
  markers: Array<{ id: string; lat: number; lon: number }>;
  app: { json: string; etag: string };
}

export interface NewRace extends Omit<RaceRow, 'startsAt'> {
  course?: StoredCourse;
  /** The card's picture, already in the blob store. */
  image?: RaceImage;
}

/** A race's own picture for the home page's card: where it is in the blob store and its sniffed type. */
export interface RaceImage {
  key: string;
  type: string;
}

/** A race as the home page's card shows it. */
export interface CardRace {
  id: string;
  name: string;
  /** Race day, local to the race (YYYY-MM-DD). */
  date: string;
  image: RaceImage | null;
}

/** What the operator may change of a race (edit-race); the start instant is worked out from them. */
export type RaceFields = Omit<RaceRow, 'id' | 'startsAt'>;

/** A race as it is to be after an edit: its fields, and its markers placed again when its units change. */
export interface RaceEdit extends RaceFields {
  /** The marker points and app course for the new units, and the ETag of the course they were made from. */
  course?: { placed: Pick<StoredCourse, 'markers' | 'app'>; fromEtag: string };
}

/** Who changed the catalogue, and when (ISO 8601), for its history. */
export interface ChangeAuthor {
  at: string;
  by: string;
}

/** A line of the catalogue's history: an edit, with the race before and after, or a removal. */
export interface RaceChange {
  raceId: string;
  at: string;
  by: string;
  action: 'edited' | 'removed';
  before: RaceRow;
  /** Absent for a removal. */
  after?: RaceRow;
}

/** Who has a stake in a race: entries from the app, and links (revoked ones counted among them). */
export interface RaceHoldings {
  entries: number;
  links: number;
  revokedLinks: number;
}

/** What the runner's app and the position snapping read: the whole track, lon/lat as GeoJSON, and placed markers. */
export interface RaceCourse {
  line: Array<[lon: number, lat: number]>;
  /** The app course's strong ETag (quotes included): it changes whenever the course does. */
  etag: string;
  markers: Array<Marker & { lat: number; lon: number }>;
}

export interface LinkView {
  linkId: string;
  runnerName: string;
  race: RaceRow;
  revoked: boolean;
}

/** A link as the operator's list shows it: its token is never kept (only its hash, the id), so never shown. */
export interface LinkListing {
  linkId: string;
  /** The runner the link records for: the same for a link and the one that replaced it. */
  runnerId: string;
  runnerName: string;
  raceId: string;
  raceName: string;
  createdAt: string;
  revokedAt: string | null;
  /** Notes that came through this link. */
  notes: number;
  /** Made by the runner's app (a race entry) or by the admin CLI's create-link. */
  madeBy: 'app' | 'admin';
}

export interface NewLink {
  /** The token's hash, never the token. */
  linkId: string;
  runnerName: string;
  raceId: string;
  createdAt: string;
}

export interface NewNote {
  id: string;
  linkId: string;
  marker: string;
  from: string;
  contentType: string;
  bytes: number;
  sha256: string;
  originalKey: string;
  receivedAt: string;
  /** The phone it came from (server/devices); absent or null when unknown. */
  deviceId?: string | null;
}

/**
 * When a note's conversion is due (epoch ms) and its race's start (epoch ms) as that was worked out
 * from, by server/races/note-deadlines.ts: the stores take it as data and never work it out.
 */
export interface JobDeadline {
  dueAt: number;
  raceStartsAt: number;
}

/** A note as it is queued: with the deadline of its conversion. */
export interface QueuedNote extends NewNote {
  deadline: JobDeadline;
}

/** A job waiting for conversion, with what its deadline is worked out from. */
export interface WaitingJob {
  noteId: string;
  linkId: string;
  marker: string;
  /** When the note was received, epoch ms. */
  receivedAt: number;
  /** Its deadline and race start as they stand. */
  dueAt: number;
  raceStartsAt: number;
}

/** The last accepted placement: metres along the course at an instant (epoch ms). */
export interface StoredPlacement {
  distanceMeters: number;
  at: number;
}

export interface StoredPassage {
  markerId: string;
  passedAt: number;
}

/**
 * What a runner's arrival at each marker is estimated from (server/races/eta.ts), and so a note's
 * deadline: the race's start, the expected finish, and the progress only while the runner shares it.
 */
export interface RunnerSchedule {
  /** The race's start (the gun), epoch ms. */
  startsAt: number;
  /** The finish time the runner expects, seconds; null when not given. */
  expectedFinishSeconds: number | null;
  /** The last placed position, only when it may be used (the runner shares progress). */
  placed?: StoredPlacement;
  /** Markers passed, with when (only with `placed`). */
  passages: ReadonlyArray<StoredPassage>;
}

export interface NoteRow extends NewNote {
  deviceId: string | null;
  status: NoteStatus;
  convertedKey: string | null;
  durationMs: number | null;
  failureReason: string | null;
  /** When the runner's app first had the audio in full; null: not yet. */
  onPhoneAt: string | null;
}

export interface ClaimedJob {
  noteId: string;
  attempts: number;
  /** Names this claim: renewing and recording the result match only while the job is still this claim's. */
  owner: string;
}

export interface Account {
  id: string;
  appleSub: string;
  createdAt: string;
}

export interface NewSession {
  id: string;
  accountId: string;
  refreshHash: string;
  createdAt: string;
  expiresAt: string;
}

export interface Entry {
  id: string;
  accountId: string;
  /** The `runners` row every link of this entry points at. */
  runnerId: string;
  displayName: string;
  race: RaceRow;
  createdAt: string;
  /** True while a link for friends works. */
  linkActive: boolean;
  /** Phones on the live link (none without one). */
  linkPhones: number;
}

export interface NewEntry {
  id: string;
  accountId: string;
  raceId: string;
  displayName: string;
  linkId: string;
  createdAt: string;
}

export interface Play {
  playedAt: string;
  marker: string;
}

export interface EntryNote extends NoteRow {
  play: Play | null;
}

export interface OwnedNote extends EntryNote {
  entryId: string;
  accountId: string;
}

export interface Share {
  id: string;
  accountId: string;
  entryId: string;
  /** Null when the whole entry is shared. */
  noteId: string | null;
  createdAt: string;
}

/** The files of one note: what deleting it must remove from the blob store. */
export interface BlobKeys {
  noteId: string;
  originalKey: string;
  convertedKey: string | null;
}

/** One object a row names, with what the row records of it (a conversion's size and digest are unknown on rows older than migration 9). */
export interface RecordedBlob {
  key: string;
  bytes: number | null;
  sha256: string | null;
}

/** A note's objects, for backup and verify-storage: its original, and its converted M4A once converted. */
export interface NoteBlobs {
  noteId: string;
  original: RecordedBlob;
  converted?: RecordedBlob;
}

/** What a queued push tells: a sender's note was heard, or a spectator's runner is soon at a marker. */
export type PushKind = 'heard' | 'soon';

/** When pushes are queued (epoch ms), and after when they are stale and dropped unsent (their life is server/push's). */
export interface PushTimes {
  now: number;
  expiresAt: number;
}
