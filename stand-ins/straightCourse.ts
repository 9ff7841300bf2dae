/**
 * A known course for tests and benches: a straight line 42.2 km north from Chicago, and where a
 * runner on it is at a moment, as the app sends a position.
 */
import type { Position } from 'geojson';
import { courseOf, legFrom } from './courses.js';

export const CHICAGO: Position = [-87.6244, 41.8827];
export const STRAIGHT = courseOf([legFrom(CHICAGO, 0, 42_195)]);

/** A position `meters` along the straight course at `at` (epoch ms), as the app sends it. */
export const positionAt = (meters: number, at: number, accuracy = 8, eastMeters = 0) => {
  const on = STRAIGHT.at(meters);
  const [lon, lat] = eastMeters ? legFrom(on, 90, eastMeters).at(eastMeters) : on;
  return { at: new Date(at).toISOString(), lat: lat!, lon: lon!, accuracy };
};
