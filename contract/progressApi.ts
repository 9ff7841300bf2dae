/**
 * The runner app's progress shapes: sharing turned on or off, and a batch of positions
 * with what became of each. Written once with typebox for validation, OpenAPI and types.
 */
import { Type, type Static } from 'typebox';
import { ProgressSchema } from './api.js';

/**
 * Positions in one batch at most. A phone that fixes every 5 s and was offline for 40 minutes
 * holds 480; it sends a longer backlog as several batches, oldest first. About 100 bytes each.
 */
export const MAX_POSITIONS_PER_BATCH = 500;
/** The body of a full batch with room for whitespace: 500 positions of about 100 bytes. */
export const MAX_POSITIONS_BODY_BYTES = 128 * 1024;

/** The bounds of an expected finish time, seconds: faster than the world record, or slower than any course's time limit, is a mistake. */
export const MIN_EXPECTED_FINISH_SECONDS = 2 * 3600;
export const MAX_EXPECTED_FINISH_SECONDS = 10 * 3600;

const ExpectedFinishSchema = Type.Integer({
  minimum: MIN_EXPECTED_FINISH_SECONDS,
  maximum: MAX_EXPECTED_FINISH_SECONDS,
  description:
    'The finish time the runner expects, in seconds (2 h to 10 h). Only schedules the conversion of notes before the runner’s first position; never shown to anyone.',
});

/** Either or both; `expectedFinishSeconds: null` forgets the finish time given before. */
export const UpdateEntrySchema = Type.Object(
  {
    shareProgress: Type.Optional(Type.Boolean()),
    expectedFinishSeconds: Type.Optional(Type.Union([ExpectedFinishSchema, Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateEntry = Static<typeof UpdateEntrySchema>;
export const EntrySharingSchema = Type.Object({
  id: Type.String(),
  shareProgress: Type.Boolean(),
  /** Present while the runner has given one. */
  expectedFinishSeconds: Type.Optional(ExpectedFinishSchema),
});

export const PositionSchema = Type.Object(
  {
    /** When the phone took the fix (ISO 8601). */
    at: Type.String({ format: 'date-time', maxLength: 40 }),
    lat: Type.Number({ minimum: -90, maximum: 90 }),
    lon: Type.Number({ minimum: -180, maximum: 180 }),
    /** Horizontal accuracy in metres as the phone reports it; negative (iOS: no fix) or over 50 m is ignored. */
    accuracy: Type.Number({ minimum: -1, maximum: 1_000_000 }),
  },
  { additionalProperties: false },
);

export const PositionBatchSchema = Type.Object(
  {
    positions: Type.Array(PositionSchema, { minItems: 1, maxItems: MAX_POSITIONS_PER_BATCH }),
  },
  { additionalProperties: false },
);
export type PositionBatch = Static<typeof PositionBatchSchema>;

/** Why a position was not placed: see server/races/progress.ts for each threshold. */
export const IgnoredReasonSchema = Type.Union([
  Type.Literal('inaccurate'),
  Type.Literal('stale'),
  Type.Literal('off_course'),
  Type.Literal('too_fast'),
  Type.Literal('behind'),
  /** Before the start or after the race's 8 hours. */
  Type.Literal('outside_race'),
  /** Later than the server's clock (plus a minute): the phone's clock is wrong. */
  Type.Literal('future'),
]);
export type IgnoredReason = Static<typeof IgnoredReasonSchema>;

export const PositionsReceiptSchema = Type.Object({
  accepted: Type.Integer(),
  /** Each position not placed, by its index in the batch. */
  ignored: Type.Array(Type.Object({ index: Type.Integer(), reason: IgnoredReasonSchema })),
  /** Where the runner now is along the course; null before the first placed position. */
  progress: Type.Union([ProgressSchema, Type.Null()]),
});
export type PositionsReceipt = Static<typeof PositionsReceiptSchema>;
