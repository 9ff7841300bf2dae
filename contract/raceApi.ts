/**
 * A race as every answer gives it, written once with typebox: the race catalogue (GET /api/races),
 * the recorder (GET /api/r/{token}), the home screen's list (GET /api/device/links), a runner's
 * entries and a keepsake each send the fields of this one schema they name (raceFields). The server
 * projects a race once (server/races/public-race.ts); the page and the keepsake import the types.
 */
import { Type, type Static, type TObject } from 'typebox';

export const MarkerSchema = Type.Object({
  id: Type.String(),
  label: Type.String(),
  distanceMeters: Type.Number(),
});

export const RaceWhenSchema = Type.Union([Type.Literal('upcoming'), Type.Literal('live'), Type.Literal('past')]);

/** A marker of a race; `lat` and `lon` (WGS84 degrees) where the race has a course. */
export const RaceMarkerSchema = Type.Object({
  ...MarkerSchema.properties,
  lat: Type.Optional(Type.Number()),
  lon: Type.Optional(Type.Number()),
});

export const RaceSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  /** Race day, local to the race (YYYY-MM-DD). */
  date: Type.String(),
  /** The race city's IANA time zone; dates and times on the recorder are written for it. */
  timezone: Type.String(),
  /** The start, ISO 8601 in UTC (raceClock.raceStartsAt). */
  startsAt: Type.String({ format: 'date-time' }),
  /** raceClock.raceWhen at the time of the answer: live from startsAt for 8 hours, past after that. */
  when: RaceWhenSchema,
  units: Type.Array(Type.Union([Type.Literal('mi'), Type.Literal('km')])),
  /** Whether GET /api/races/{id}/course has a course (and the markers their lat, lon). */
  hasCourse: Type.Boolean(),
  markers: Type.Array(RaceMarkerSchema),
});
export type RaceInfo = Static<typeof RaceSchema>;

type RaceField = typeof RaceSchema.properties;

/** Some of the race's fields, in the order an answer sends them: the fields' schemas are RaceSchema's own. */
export const raceFields = <K extends keyof RaceField>(...keys: K[]): TObject<Pick<RaceField, K>> =>
  Type.Object(Object.fromEntries(keys.map((key) => [key, RaceSchema.properties[key]])) as Pick<RaceField, K>);

/** The race beside an entry or a keepsake: which race, and its day. */
export const RaceNamedSchema = raceFields('id', 'name', 'date');
