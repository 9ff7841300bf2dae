/**
 * The runner's body on the course for the reference client: where they are at a moment, at an even
 * pace, as a phone's GPS reports it (a little noise, seeded). The world of the test, not the app.
 */
import type { Position } from 'geojson';
import { measure } from '../server/races/course.js';
import { seededRandom } from './seededRandom.js';
import type { Fix } from '../reference-app/fences.js';

export interface RunnerOnCourse {
  /** Metres along the course at `elapsedMs` after the start (stops at the finish). */
  distanceAt(elapsedMs: number): number;
  /** The phone's fix at `elapsedMs`. */
  fixAt(elapsedMs: number): Fix;
  finishMs: number;
}

const METERS_PER_DEGREE = 111_320;

export function runnerOnCourse(
  line: readonly Position[],
  secondsPerKm: number,
  opts: { seed?: number; noiseMeters?: number; accuracy?: number } = {},
): RunnerOnCourse {
  const path = measure(line);
  const length = path.cumulative.at(-1)!;
  const random = seededRandom(opts.seed ?? 1);
  const noise = opts.noiseMeters ?? 5;
  const metersPerMs = 1000 / (secondsPerKm * 1000);
  const distanceAt = (elapsedMs: number) => Math.min(length, Math.max(0, elapsedMs * metersPerMs));
  return {
    finishMs: length / metersPerMs,
    distanceAt,
    fixAt(elapsedMs) {
      const [lon, lat] = path.at(distanceAt(elapsedMs)).position as [number, number];
      const dLat = ((random() * 2 - 1) * noise) / METERS_PER_DEGREE;
      const dLon = ((random() * 2 - 1) * noise) / (METERS_PER_DEGREE * Math.cos((lat * Math.PI) / 180));
      return { lat: lat + dLat, lon: lon + dLon, accuracy: opts.accuracy ?? 10 };
    },
  };
}
