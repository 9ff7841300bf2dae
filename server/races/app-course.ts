/**
 * The course as the runner's app downloads and caches it: a GeoJSON LineString of at most 2,000
 * points on which every marker's point is exactly a vertex, and a strong ETag of those bytes.
 */
import { createHash } from 'node:crypto';
import { lineString } from '@turf/helpers';
import { simplify } from '@turf/simplify';
import type { LineString, Position } from 'geojson';

export const MAX_APP_COURSE_POINTS = 2000;

export interface AppCourse {
  line: LineString;
  /** The line as served: JSON.stringify of `line` (our key order, no spaces, degrees rounded to 1e-6). */
  json: string;
  /** Strong ETag of `json`, quotes included: the same course always gives the same one. */
  etag: string;
}

/** Where a marker falls: on the segment from vertex `segment` to the next (the last vertex: at the end). */
export interface MarkerPoint {
  segment: number;
  position: Position;
}

/** Degrees to 1e-6 (about 0.1 m): what the app needs, and a marker's point equals its vertex to the bit. */
export const roundPosition = ([lon, lat]: Position): Position => [Math.round(lon! * 1e6) / 1e6, Math.round(lat! * 1e6) / 1e6];

/** Douglas-Peucker tolerance, in degrees, tried first (about 0.1 m) and doubled until the course fits. */
const FIRST_TOLERANCE = 1e-6;

/**
 * The track with each marker's point inserted as a vertex, then each stretch between consecutive
 * markers simplified on its own (@turf/simplify keeps a line's ends), with the smallest tolerance
 * of the series that brings the whole under MAX_APP_COURSE_POINTS; a course that fits is kept whole.
 * `markers` must be in order along the path, as courseFrom places them.
 */
export function appCourse(track: readonly Position[], markers: readonly MarkerPoint[]): AppCourse {
  const points: Position[] = [];
  const keep = [0];
  const add = (position: Position, kept: boolean) => {
    const last = points.at(-1);
    // A point equal to the one before is not repeated; if it is a marker's, that vertex is its.
    if (!last || last[0] !== position[0] || last[1] !== position[1]) points.push(position);
    if (kept && keep.at(-1) !== points.length - 1) keep.push(points.length - 1);
  };
  let next = 0;
  track.forEach((vertex, i) => {
    add(roundPosition(vertex), i === track.length - 1);
    for (; next < markers.length && markers[next]!.segment === i; next++) add(markers[next]!.position, true);
  });
  const coordinates = points.length <= MAX_APP_COURSE_POINTS ? points : simplifyBetween(points, keep);
  const line: LineString = { type: 'LineString', coordinates };
  const json = JSON.stringify(line);
  return { line, json, etag: `"${createHash('sha256').update(json).digest('base64url')}"` };
}

function simplifyBetween(points: Position[], keep: number[]): Position[] {
  if (keep.length > MAX_APP_COURSE_POINTS) throw new Error(`A course cannot keep ${keep.length} markers in ${MAX_APP_COURSE_POINTS} points.`);
  for (let tolerance = FIRST_TOLERANCE; ; tolerance *= 2) {
    const simplified = [points[0]!];
    for (let k = 1; k < keep.length; k++) {
      const stretch = points.slice(keep[k - 1], keep[k]! + 1);
      const kept = stretch.length > 2 ? simplify(lineString(stretch), { tolerance, highQuality: true }).geometry.coordinates : stretch;
      simplified.push(...kept.slice(1));
    }
    // Ends kept, so the loop ends at the latest when every stretch is down to its two ends.
    if (simplified.length <= MAX_APP_COURSE_POINTS) return simplified;
  }
}
