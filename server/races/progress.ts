/**
 * Places a runner's positions on the course: each fix becomes a distance along it (nearest point,
 * @turf/nearest-point-on-line), moving forward only, and the markers it passes get the time they
 * were passed. Pure: the caller loads and stores the state. Only distances leave this module, never
 * a coordinate: a link holder learns how far along the course the runner is, not where they are.
 */
import { distance } from '@turf/distance';
import { lineString, point } from '@turf/helpers';
import { nearestPointOnLine } from '@turf/nearest-point-on-line';
import type { Position } from 'geojson';
import { MARATHON_METERS } from '../../contract/markers.js';
import { measure, type MeasuredPath } from './course.js';

/**
 * The fastest a runner is taken to move along the course, in m/s. The marathon world record is
 * 5.83 m/s on average and elite finishing kicks reach about 7; anything faster between two fixes
 * is a GPS jump (a reflection off a building, a fix on the other side of a loop), not running.
 */
export const MAX_SPEED_MPS = 7;
/**
 * Fixes less sure than this (the phone's accuracy, metres) are ignored. Outdoors a phone's GPS says
 * 3-15 m, 20-50 m between tall buildings; past 50 m it is a cell or Wi-Fi guess, worth more than
 * half a minute of running.
 */
export const MAX_ACCURACY_METERS = 50;
/**
 * A fix farther from the course line than this plus its accuracy is off the course: a wide avenue
 * is 30 m, and a GPX is drawn within about 10 m of the road. A runner who leaves the course (to the
 * medical tent, the toilets, home) stops moving on it instead of being dragged along it.
 */
export const OFF_COURSE_METERS = 40;
/**
 * How far behind the last accepted distance the search starts: a fix slightly behind (GPS noise,
 * a runner waiting at an aid station) is then seen as behind, not pulled onto a later leg.
 */
export const BEHIND_SEARCH_METERS = 200;
/** A fix this close to the end of the line has crossed the finish (the line ends on it; a fix rarely lands exactly there). */
export const FINISH_METERS = 10;

export interface Fix {
  /** Epoch milliseconds. */
  at: number;
  lat: number;
  lon: number;
  /** The phone's horizontal accuracy, metres (its 68 % radius). */
  accuracy: number;
}

/** The last accepted placement; before any, the start line at the race's start. */
export interface Placed {
  distanceMeters: number;
  /** Epoch milliseconds. */
  at: number;
}

export interface Passage {
  markerId: string;
  /** Epoch milliseconds, interpolated between the two fixes either side of the marker. */
  passedAt: number;
}

/** What became of one fix. */
export type FixOutcome = 'accepted' | 'inaccurate' | 'stale' | 'off_course' | 'too_fast' | 'behind';

export interface SnapCourse {
  coordinates: readonly Position[];
  path: MeasuredPath;
  lengthMeters: number;
  /** Markers by distance along this line, ascending. */
  markers: ReadonlyArray<{ id: string; meters: number }>;
}

/**
 * The course ready to place fixes on: its line (lon/lat), measured once, and where each marker is
 * on it. The finish is at the line's end, as courseFrom places it; others at their own distance.
 */
export function snapCourse(line: readonly Position[], markers: ReadonlyArray<{ id: string; distanceMeters: number }>): SnapCourse {
  const path = measure(line);
  const lengthMeters = path.cumulative.at(-1)!;
  const placed = markers.map((m) => ({ id: m.id, meters: m.distanceMeters >= MARATHON_METERS ? lengthMeters : Math.min(m.distanceMeters, lengthMeters) }));
  return { coordinates: line, path, lengthMeters, markers: placed.sort((a, b) => a.meters - b.meters) };
}

interface Snap {
  meters: number;
  /** Metres from the fix to that point of the line. */
  off: number;
}

/** The nearest point to `fix` on the stretch of the course from `start` to `end` metres. */
function snapWithin(course: SnapCourse, fix: Fix, start: number, end: number): Snap {
  const { path, coordinates } = course;
  const first = path.at(start);
  const last = path.at(end);
  const points: Position[] = [first.position];
  const meters: number[] = [start];
  for (let i = first.segment + 1; i < coordinates.length && path.cumulative[i]! < end; i++) {
    if (path.cumulative[i]! <= start) continue;
    points.push(coordinates[i]!);
    meters.push(path.cumulative[i]!);
  }
  points.push(last.position);
  meters.push(end);
  const nearest = nearestPointOnLine(lineString(points as Position[]), point([fix.lon, fix.lat]), { units: 'meters' });
  const i = Math.min(nearest.properties.segmentIndex, points.length - 2);
  // Turf measures on a sphere; the course on the ellipsoid: take the fraction of the segment.
  const segment = distance(points[i]!, points[i + 1]!, { units: 'meters' });
  const fraction = segment > 0 ? Math.min(1, nearest.properties.segmentDistance / segment) : 0;
  return { meters: meters[i]! + fraction * (meters[i + 1]! - meters[i]!), off: nearest.properties.pointDistance };
}

/** Why a fix off the searched stretch was refused: on the course elsewhere (behind, or too far ahead), or off it. */
function whyNotNear(course: SnapCourse, fix: Fix, last: Placed): FixOutcome {
  const anywhere = snapWithin(course, fix, 0, course.lengthMeters);
  if (anywhere.off > OFF_COURSE_METERS + fix.accuracy) return 'off_course';
  return anywhere.meters < last.distanceMeters ? 'behind' : 'too_fast';
}

/** One fix against the last placement: its new placement, or why not. */
export function placeFix(course: SnapCourse, last: Placed, fix: Fix): Placed | FixOutcome {
  // iOS reports a negative accuracy for a fix it has no confidence in.
  if (!(fix.accuracy >= 0 && fix.accuracy <= MAX_ACCURACY_METERS)) return 'inaccurate';
  if (fix.at <= last.at) return 'stale';
  const start = Math.max(0, last.distanceMeters - BEHIND_SEARCH_METERS);
  // As far as a runner can have gone since, and the fix's own uncertainty on top.
  const reach = last.distanceMeters + (MAX_SPEED_MPS * (fix.at - last.at)) / 1000 + fix.accuracy + 20;
  const end = Math.min(course.lengthMeters, reach);
  if (end - start < 1) return 'stale';
  const snap = snapWithin(course, fix, start, end);
  if (snap.off > OFF_COURSE_METERS + fix.accuracy) return whyNotNear(course, fix, last);
  // Pinned to either end of the stretch: the fix lies beyond it, farther than a runner could have gone, or farther back.
  if (end < course.lengthMeters && snap.meters >= end - 0.5) return 'too_fast';
  if (snap.meters < last.distanceMeters) return 'behind';
  return { distanceMeters: snap.meters >= course.lengthMeters - FINISH_METERS ? course.lengthMeters : snap.meters, at: fix.at };
}

export interface Placement {
  /** The last accepted placement (unchanged when nothing was accepted). */
  placed: Placed;
  /** Markers passed by the accepted fixes, in order. */
  passages: Passage[];
  /** Each fix's outcome, in the order given. */
  outcomes: FixOutcome[];
}

/** A batch of fixes (any order: a phone sends what it queued) placed from `last`, oldest first. */
export function placeFixes(course: SnapCourse, last: Placed, fixes: readonly Fix[]): Placement {
  const outcomes: FixOutcome[] = new Array(fixes.length);
  const passages: Passage[] = [];
  let placed = last;
  const order = fixes.map((_, i) => i).sort((a, b) => fixes[a]!.at - fixes[b]!.at);
  for (const i of order) {
    const next = placeFix(course, placed, fixes[i]!);
    if (typeof next === 'string') {
      outcomes[i] = next;
      continue;
    }
    outcomes[i] = 'accepted';
    for (const marker of course.markers) {
      if (marker.meters <= placed.distanceMeters || marker.meters > next.distanceMeters) continue;
      const share = (marker.meters - placed.distanceMeters) / (next.distanceMeters - placed.distanceMeters);
      passages.push({ markerId: marker.id, passedAt: Math.round(placed.at + share * (next.at - placed.at)) });
    }
    placed = next;
  }
  return { placed, passages, outcomes };
}
