/**
 * The runner app's API shapes, written once with typebox: the server validates and serialises
 * with them, /api/openapi.json is generated from them, and the keepsake page imports the types.
 */
import { Type, type Static } from 'typebox';
import { NOTE_ID_PATTERN } from './api.js';
import { MAX_RUNNER_NAME_LENGTH } from './limits.js';
import { MARKER_ID_PATTERN } from './markers.js';
import { TOKEN_PATTERN } from './paths.js';
import { RaceNamedSchema, RaceSchema } from './raceApi.js';

const Uuid = Type.String({ pattern: NOTE_ID_PATTERN });
const IsoTime = Type.String({ format: 'date-time' });

export const RunnerSchema = Type.Object({ id: Type.String(), createdAt: IsoTime });

export const SessionSchema = Type.Object({
  /** Bearer token for every other call; lives accessTokenExpiresIn seconds. */
  accessToken: Type.String(),
  accessTokenExpiresIn: Type.Integer(),
  /** Use once with POST /api/auth/refresh; the answer carries its replacement. */
  refreshToken: Type.String(),
  runner: RunnerSchema,
});
export type Session = Static<typeof SessionSchema>;

export const AppleSignInSchema = Type.Object({
  identityToken: Type.String({ minLength: 20, maxLength: 8192 }),
  /** The raw nonce the app made for this sign-in (required); Apple's token carries it or its SHA-256 hex. */
  nonce: Type.String({ minLength: 1, maxLength: 256 }),
});

export const RefreshSchema = Type.Object({ refreshToken: Type.String({ minLength: 20, maxLength: 200 }) });

export const RaceListSchema = Type.Object({ races: Type.Array(RaceSchema) });
export const RaceParamsSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
/** A race's course as GeoJSON (RFC 7946): [lon, lat] pairs, at most 2,000, each marker's point among them. */
export const CourseLineSchema = Type.Object({
  type: Type.Literal('LineString'),
  coordinates: Type.Array(Type.Array(Type.Number(), { minItems: 2, maxItems: 2 })),
});

export const LinkSchema = Type.Object({
  /** Shown once: the server keeps only its hash. */
  token: Type.String(),
  url: Type.String(),
});

export const NewEntrySchema = Type.Object({
  raceId: Type.String({ minLength: 1, maxLength: 64 }),
  displayName: Type.String({ minLength: 1, maxLength: MAX_RUNNER_NAME_LENGTH, pattern: '\\S' }),
});

export const EntrySchema = Type.Object({
  id: Type.String(),
  race: RaceNamedSchema,
  displayName: Type.String(),
  createdAt: IsoTime,
  linkActive: Type.Boolean(),
  linkPhones: Type.Integer({
    minimum: 0,
    description:
      'How many phones follow the live link: phones that opened it and are on it (0 without a live link). A link holds at most 500 and takes at most ' +
      'LINK_NEW_PHONES_PER_HOUR (100) new ones an hour; a phone that sent a note or asked to be told stays on it. Far more phones than the friends ' +
      'it was sent to means the link spread: replaceEntryLink, and the new link starts with none.',
  }),
  /** Only in the answers that make a link. */
  link: Type.Optional(LinkSchema),
});
export type Entry = Static<typeof EntrySchema>;
export const EntryListSchema = Type.Object({ entries: Type.Array(EntrySchema) });

export const IdParamsSchema = Type.Object({ id: Uuid });

export const NoteStatusSchema = Type.Union([Type.Literal('received'), Type.Literal('converted'), Type.Literal('failed')]);

export const RunnerNoteSchema = Type.Object({
  id: Type.String(),
  from: Type.String(),
  durationMs: Type.Union([Type.Integer(), Type.Null()]),
  status: NoteStatusSchema,
  receivedAt: IsoTime,
  /** Signed, short-lived URL of the converted M4A; null until converted. */
  audioUrl: Type.Union([Type.String(), Type.Null()]),
  audioUrlExpiresAt: Type.Union([IsoTime, Type.Null()]),
  heardAt: Type.Union([IsoTime, Type.Null()]),
});

export const MarkerNotesSchema = Type.Object({
  marker: Type.String(),
  label: Type.String(),
  count: Type.Integer(),
  /** Left out with ?summary=1, so the notes stay a surprise until race day. */
  notes: Type.Optional(Type.Array(RunnerNoteSchema)),
});
/**
 * The notes list. Without `after`: every note, grouped by marker. With `after`: only the notes
 * added or changed (now playable, or failed) since that cursor, grouped the same way and counted
 * among themselves, and in `removed` the ids of the notes the runner removed since.
 */
export const EntryNotesSchema = Type.Object({
  entryId: Type.String(),
  markers: Type.Array(MarkerNotesSchema),
  /** Opaque: give it back as `after` to hear only what changed since this answer. */
  cursor: Type.String(),
  /** Only with `after`: ids of the notes removed since that cursor. */
  removed: Type.Optional(Type.Array(Type.String())),
  /** The race's start as it stands when the answer is made (ISO 8601, UTC): a start moved on race morning reaches the app with its next sync. */
  raceStartsAt: IsoTime,
});
export type EntryNotes = Static<typeof EntryNotesSchema>;
/** Longest `wait` of a sync request, in seconds. */
export const MAX_SYNC_WAIT_SECONDS = 30;
export const NotesQuerySchema = Type.Object({
  summary: Type.Optional(Type.Union([Type.Literal('1'), Type.Literal('0')])),
  /** The `cursor` of an earlier answer: answer only what changed since. */
  after: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  /** With `after`: hold the answer up to this many seconds until something changes. */
  wait: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_SYNC_WAIT_SECONDS })),
  /**
   * With `wait`: `playable` holds on through a note that is only received (not yet converted),
   * so the hold ends for a note the app can download, or one removed: one answer per note on a
   * lossy link, not two. The answer still carries every change since the cursor.
   */
  until: Type.Optional(Type.Literal('playable')),
});

export const AudioQuerySchema = Type.Object({
  expires: Type.Optional(Type.Integer()),
  sig: Type.Optional(Type.String({ maxLength: 100 })),
});

export const PlayedSchema = Type.Object({
  playedAt: IsoTime,
  marker: Type.String({ pattern: MARKER_ID_PATTERN }),
});
export const PlayReceiptSchema = Type.Object({ id: Type.String(), heardAt: IsoTime, heardAtMarker: Type.String() });

/** Exactly one of the two: the whole entry (every playable note, now and later) or one note. */
export const NewShareSchema = Type.Object({ entryId: Type.Optional(Uuid), noteId: Type.Optional(Uuid) });
export const ShareSchema = Type.Object({ id: Type.String(), url: Type.String() });

/** What the sender's recorder may learn about its own note. */
export const NoteHeardSchema = Type.Object({
  id: Type.String(),
  status: NoteStatusSchema,
  /** The runner's app has downloaded the note's audio in full at least once: it is on the runner's phone. */
  onRunnersPhone: Type.Boolean(),
  heardAt: Type.Optional(IsoTime),
  heardAtMarker: Type.Optional(Type.String()),
  /** 'Mile 13', ready to show as 'Heard at Mile 13'. */
  heardAtLabel: Type.Optional(Type.String()),
});
export type NoteHeard = Static<typeof NoteHeardSchema>;

export const ShareTokenParamsSchema = Type.Object({ token: Type.String({ pattern: TOKEN_PATTERN }) });
export const ShareAudioParamsSchema = Type.Object({ token: Type.String({ pattern: TOKEN_PATTERN }), id: Uuid });

export const KeepsakeSchema = Type.Object({
  runner: Type.Object({ displayName: Type.String() }),
  race: RaceNamedSchema,
  notes: Type.Array(
    Type.Object({
      id: Type.String(),
      marker: Type.String(),
      markerLabel: Type.String(),
      from: Type.String(),
      durationMs: Type.Union([Type.Integer(), Type.Null()]),
      /** Same-origin path of the M4A, valid while the share exists. */
      audioUrl: Type.String(),
    }),
  ),
});
export type Keepsake = Static<typeof KeepsakeSchema>;

/** The body of a 204 answer. */
export const NoContentSchema = Type.Null({ description: 'No content' });
