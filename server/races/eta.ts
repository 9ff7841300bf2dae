/**
 * One estimate of when a runner reaches each marker, pure: the caller reads the inputs.
 * From placed progress: the pace over the last few kilometres (recent stretches weigh more), else
 * the pace since the start, with a modest fade for markers far ahead (marathon runners slow in
 * the second half), counted from the last fix's own time, never from now. Before
 * any position (or for a runner who does not share) a coarse estimate from the race's start and the
 * runner's expected finish, else a typical marathon: for scheduling conversions only, never shown.
 */
import { MARATHON_METERS } from '../../contract/markers.js';
import type { RunnerSchedule, StoredPlacement } from '../db/types.js';

/** An average marathon finish (published analyses of millions of results: about 4 h 30). */
export const TYPICAL_FINISH_SECONDS = 4.5 * 3600;
/** The stretch behind the runner whose pace predicts the next: about the last 5 km. */
export const RECENT_METERS = 5000;
/** Within it, a stretch's weight halves for every this many metres it lies behind the runner. */
export const RECENT_HALF_WEIGHT_METERS = 2000;
/** Less than this much of the recent stretch measured (the first kilometre): the pace since the start is taken instead. */
export const MIN_RECENT_METERS = 1000;
/** Before this distance the pace since the gun says more about the corral than the runner (waves start up to an hour late). */
export const MIN_SINCE_START_METERS = 3000;
/**
 * How much slower each kilometre ahead is run than the last: most amateurs run the second half 10 %
 * or more slower, about 0.5 % a kilometre; a little less is taken, since a recent pace already holds
 * some of it. Tuned on the drifting runner of tests/server/races/eta.test.ts.
 */
export const FADE_PER_KM = 0.004;
/** Paces outside these (s/km) are a bad fix or a stop, not running: world record pace to a walk. */
export const FASTEST_SECONDS_PER_KM = 170;
export const SLOWEST_SECONDS_PER_KM = 720;

/** A point the runner was seen at: metres along the course at an instant (epoch ms). */
export type PlacedAt = StoredPlacement;

/** What the estimate is made from: a runner's schedule as the progress store reads it. */
export type EtaInput = RunnerSchedule;

export interface CourseMarker {
  id: string;
  distanceMeters: number;
}

const clampPace = (secondsPerMeter: number) => Math.min(SLOWEST_SECONDS_PER_KM / 1000, Math.max(FASTEST_SECONDS_PER_KM / 1000, secondsPerMeter));

/** The pace (s/m) of the runner's expected finish, or of a typical marathon. */
export const plannedPace = (expectedFinishSeconds: number | null): number => (expectedFinishSeconds ?? TYPICAL_FINISH_SECONDS) / MARATHON_METERS;

/** Points (metres, ms) the runner was seen at, in order of distance, each farther and later than the one before. */
function track(input: EtaInput, markers: ReadonlyArray<CourseMarker>, placed: PlacedAt): PlacedAt[] {
  const meters = new Map(markers.map((m) => [m.id, m.distanceMeters]));
  const seen = input.passages.filter((p) => meters.has(p.markerId)).map((p) => ({ distanceMeters: meters.get(p.markerId)!, at: p.passedAt }));
  seen.push(placed);
  seen.sort((a, b) => a.distanceMeters - b.distanceMeters || a.at - b.at);
  const points: PlacedAt[] = [];
  for (const p of seen) {
    const last = points.at(-1);
    if (!last || (p.distanceMeters > last.distanceMeters && p.at > last.at)) points.push(p);
  }
  return points;
}

/** Seconds a metre over the recent stretch, weighted to the most recent; undefined when too little of it was measured. */
function recentPace(points: readonly PlacedAt[], here: number): number | undefined {
  const from = here - RECENT_METERS;
  let weighted = 0;
  let weights = 0;
  let covered = 0;
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1]!;
    const b = points[i]!;
    if (b.distanceMeters <= from) continue;
    const length = b.distanceMeters - Math.max(a.distanceMeters, from);
    const middle = (Math.max(a.distanceMeters, from) + b.distanceMeters) / 2;
    const weight = length * 0.5 ** ((here - middle) / RECENT_HALF_WEIGHT_METERS);
    weighted += weight * ((b.at - a.at) / 1000 / (b.distanceMeters - a.distanceMeters));
    weights += weight;
    covered += length;
  }
  return covered >= MIN_RECENT_METERS && weights > 0 ? weighted / weights : undefined;
}

/** Seconds to run `ahead` metres at `pace` s/m, each kilometre FADE_PER_KM slower than the one before. */
const fadedSeconds = (pace: number, ahead: number) => pace * ahead * (1 + (FADE_PER_KM * ahead) / 2000);

/**
 * When (epoch ms) the runner is expected at each marker not yet passed, in the markers' order.
 * `markers`: the race's markers by nominal distance (the finish at its full distance).
 */
export function expectedArrivals(input: EtaInput, markers: ReadonlyArray<CourseMarker>): Array<{ id: string; at: number }> {
  const { placed } = input;
  if (!placed) {
    // Coarse: from the gun at the planned pace; the expected finish already holds the runner's fade.
    const pace = plannedPace(input.expectedFinishSeconds);
    return markers.map((m) => ({ id: m.id, at: Math.round(input.startsAt + pace * m.distanceMeters * 1000) }));
  }
  const passed = new Set(input.passages.map((p) => p.markerId));
  const points = track(input, markers, placed);
  const here = placed.distanceMeters;
  const sinceStart = here >= MIN_SINCE_START_METERS && placed.at > input.startsAt ? (placed.at - input.startsAt) / 1000 / here : undefined;
  const pace = clampPace(recentPace(points, here) ?? sinceStart ?? plannedPace(input.expectedFinishSeconds));
  return markers
    .filter((m) => !passed.has(m.id) && m.distanceMeters > here)
    .map((m) => ({ id: m.id, at: Math.round(placed.at + fadedSeconds(pace, m.distanceMeters - here) * 1000) }));
}
