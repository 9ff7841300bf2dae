/**
 * The notes API's request and response shapes, written once with typebox: the server validates
 * and serialises with these schemas, the recorder imports the static types.
 */
import { Type, type Static } from 'typebox';
import { MAX_FROM_LENGTH } from './limits.js';
import { MARKER_ID_PATTERN } from './markers.js';
import { TOKEN_PATTERN } from './paths.js';
import { MarkerSchema, raceFields } from './raceApi.js';

// The limits live in limits.ts (importable without typebox); re-exported for the routes that validate with them.
export { MAX_FROM_LENGTH, MAX_NOTE_BYTES } from './limits.js';

/** A client-made note id: a lower- or upper-case UUID. */
export const NOTE_ID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

export const ApiErrorSchema = Type.Object({
  /** Machine code, e.g. 'link_not_found', 'digest_mismatch'. */
  error: Type.String(),
  /** A sentence a person understands. */
  message: Type.String(),
});
export type ApiError = Static<typeof ApiErrorSchema>;

/** How far along the course a runner who shares progress is: distance and markers only. */
export const ProgressSchema = Type.Object({
  /** Metres along the course at the last placed position. */
  distanceMeters: Type.Number(),
  /** ISO time of that position. */
  at: Type.String(),
  /** The last marker passed, or null before the first one. */
  lastMarker: Type.Union([Type.Null(), Type.Object({ id: Type.String(), label: Type.String(), passedAt: Type.String() })]),
});
export type Progress = Static<typeof ProgressSchema>;

/**
 * When the runner is expected at each marker still ahead (server/races/eta.ts): only while
 * the race is live and the runner shares progress, never a coordinate. The recorder shows these times,
 * suggests a marker a note can still reach in time (contract/delivery.ts), and, offline, says how old they are.
 */
export const EstimatesSchema = Type.Object({
  /** ISO time the estimate was made (the server's clock at the answer). */
  madeAt: Type.String(),
  /** The markers not yet passed, in course order, each with the ISO time the runner is expected there. */
  markers: Type.Array(Type.Object({ id: Type.String(), at: Type.String() })),
});
export type Estimates = Static<typeof EstimatesSchema>;

/**
 * The server's clock at the answer (server/clock.ts). The recorder keeps its own clock in
 * step with it, so every race time it shows and judges by is the server's, whatever the phone's says.
 */
export const ServerClockSchema = Type.Object({
  now: Type.String({ description: 'The server’s time when it answered, ISO 8601 in UTC: the clock race times are measured on.' }),
  rate: Type.Number({
    minimum: 1,
    description: 'How many of the server’s milliseconds pass in a real one: 1, except in `npm run demo`, which runs a whole race in minutes.',
  }),
});
export type ServerClock = Static<typeof ServerClockSchema>;

export const RecorderLinkSchema = Type.Object({
  runner: Type.Object({ displayName: Type.String() }),
  race: raceFields('id', 'name', 'date', 'units', 'timezone', 'startsAt', 'when'),
  markers: Type.Array(MarkerSchema),
  /** Only while the race is live and the runner shares progress. Never coordinates. */
  progress: Type.Optional(ProgressSchema),
  /** Only with `progress`: when the runner is expected at each marker ahead. */
  estimates: Type.Optional(EstimatesSchema),
  clock: ServerClockSchema,
});
export type RecorderLink = Static<typeof RecorderLinkSchema>;

export const NoteReceiptSchema = Type.Object({
  id: Type.String(),
  marker: Type.String(),
  from: Type.String(),
  contentType: Type.String(),
  bytes: Type.Integer(),
  /** SHA-256 of the uploaded bytes, lower-case hex. */
  sha256: Type.String(),
  /** ISO timestamp of the first successful upload. */
  receivedAt: Type.String(),
});
export type NoteReceipt = Static<typeof NoteReceiptSchema>;

export const TokenParamsSchema = Type.Object({
  token: Type.String({ pattern: TOKEN_PATTERN }),
});
export type TokenParams = Static<typeof TokenParamsSchema>;

export const NoteParamsSchema = Type.Object({
  token: Type.String({ pattern: TOKEN_PATTERN }),
  noteId: Type.String({ pattern: NOTE_ID_PATTERN }),
});
export type NoteParams = Static<typeof NoteParamsSchema>;

export const NoteQuerySchema = Type.Object({
  marker: Type.String({ pattern: MARKER_ID_PATTERN }),
  // A name has at least one visible character; control characters are refused.
  from: Type.String({
    minLength: 1,
    maxLength: MAX_FROM_LENGTH,
    pattern: '^[^\\u0000-\\u001f\\u007f]*[^\\s\\u0000-\\u001f\\u007f][^\\u0000-\\u001f\\u007f]*$',
  }),
});
export type NoteQuery = Static<typeof NoteQuerySchema>;
