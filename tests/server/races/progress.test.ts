import type { Position } from 'geojson';
import { describe, expect, it } from 'vitest';
import { placeFix, placeFixes, snapCourse, type Fix, type Placed } from '../../../server/races/progress.js';
import { markersFor } from '../../../contract/markers.js';
import { courseOf, legBetween, legFrom } from '../../../stand-ins/courses.js';

const CHICAGO: Position = [-87.6244, 41.8827];
const MILES = markersFor(['mi']);
const START = Date.parse('2026-10-11T12:30:00Z');
const PACE = 3; // m/s, a 3:54 marathon

/** A point `meters` to the east of `p` (the straight course runs north). */
const east = (p: Position, meters: number) => legFrom(p, 90, meters).at(meters);

// North from Chicago, 42.2 km.
const straight = courseOf([legFrom(CHICAGO, 0, 42_195)]);
// Out 21.1 km north and back on the same road, 30 m to its west: the return passes every point of the way out.
const turn = legFrom(CHICAGO, 0, 21_097.5).at(21_097.5);
const back = legFrom(turn, 270, 30).at(30);
const outAndBack = courseOf([legFrom(CHICAGO, 0, 21_097.5), legBetween(turn, back), legFrom(back, 180, 21_067.5)]);
// A rectangle 10.5 km by 10.5 km run once: it finishes where it started.
const side = 42_195 / 4;
const c1 = legFrom(CHICAGO, 0, side).at(side);
const c2 = legFrom(c1, 90, side).at(side);
const c3 = legFrom(c2, 180, side).at(side);
const loop = courseOf([legBetween(CHICAGO, c1), legBetween(c1, c2), legBetween(c2, c3), legBetween(c3, CHICAGO)]);

const fixAt = (course: { at(d: number): Position }, meters: number, seconds: number, accuracy = 8, offEast = 0): Fix => {
  const [lon, lat] = offEast ? east(course.at(meters), offEast) : course.at(meters);
  return { at: START + seconds * 1000, lon: lon!, lat: lat!, accuracy };
};
const running = (course: { at(d: number): Position }, fromSeconds: number, toSeconds: number, every = 30): Fix[] => {
  const fixes: Fix[] = [];
  for (let s = fromSeconds; s < toSeconds; s += every) fixes.push(fixAt(course, s * PACE, s));
  return [...fixes, fixAt(course, toSeconds * PACE, toSeconds)];
};
const startLine: Placed = { distanceMeters: 0, at: START };

describe('placing a runner on the course', () => {
  const course = snapCourse(straight.track, MILES);

  it('should place each fix at its distance along a straight course and time each marker passed', () => {
    const { placed, passages, outcomes } = placeFixes(course, startLine, running(straight, 30, 3600));
    expect(outcomes.every((o) => o === 'accepted')).toBe(true);
    expect(placed.distanceMeters).toBeCloseTo(3600 * PACE, -1);
    expect(placed.at).toBe(START + 3600_000);
    expect(passages.map((p) => p.markerId)).toEqual(['mi-1', 'mi-2', 'mi-3', 'mi-4', 'mi-5', 'mi-6']);
    // Mile 12 of the spec's example is mile 1 here: 1,609 m at 3 m/s is 536 s after the start.
    expect(Math.abs(passages[0]!.passedAt - (START + (1609 / PACE) * 1000))).toBeLessThan(2000);
  });

  it('should ignore a fix that jumps ahead faster than anyone runs, and keep going from the fix before it', () => {
    const before = placeFixes(course, startLine, running(straight, 30, 600)).placed;
    // 30 s later but 2 km on: 67 m/s.
    expect(placeFix(course, before, fixAt(straight, 600 * PACE + 2000, 630))).toBe('too_fast');
    const next = placeFix(course, before, fixAt(straight, 660 * PACE, 660));
    expect(next).toMatchObject({ at: START + 660_000 });
    expect((next as Placed).distanceMeters).toBeCloseTo(660 * PACE, -1);
  });

  it('should never move back: a fix behind the last one is ignored', () => {
    const before = placeFixes(course, startLine, running(straight, 30, 600)).placed;
    expect(placeFix(course, before, fixAt(straight, 600 * PACE - 100, 630))).toBe('behind');
    expect(placeFix(course, before, fixAt(straight, 600 * PACE - 1000, 630))).toBe('behind');
  });

  it('should ignore a fix less accurate than 50 m, and one off the course', () => {
    expect(placeFix(course, startLine, fixAt(straight, 300, 100, 80))).toBe('inaccurate');
    expect(placeFix(course, startLine, fixAt(straight, 300, 100, Number.NaN))).toBe('inaccurate');
    expect(placeFix(course, startLine, fixAt(straight, 300, 100, -1))).toBe('inaccurate');
    expect(placeFix(course, startLine, fixAt(straight, 300, 100, 8, 300))).toBe('off_course');
    // 30 m off with 8 m accuracy: on a wide avenue, still on the course.
    expect((placeFix(course, startLine, fixAt(straight, 300, 100, 8, 30)) as Placed).distanceMeters).toBeCloseTo(300, -1);
  });

  it('should ignore a fix no later than the last accepted one, so a batch sent twice changes nothing', () => {
    const fixes = running(straight, 30, 600);
    const first = placeFixes(course, startLine, fixes);
    const again = placeFixes(course, first.placed, fixes);
    expect(again.outcomes.every((o) => o === 'stale')).toBe(true);
    expect(again.placed).toEqual(first.placed);
    expect(again.passages).toEqual([]);
  });

  it('should take a batch in any order, oldest first', () => {
    const fixes = running(straight, 30, 1200);
    const shuffled = [...fixes].reverse();
    const { placed, outcomes } = placeFixes(course, startLine, shuffled);
    expect(outcomes.every((o) => o === 'accepted')).toBe(true);
    expect(placed.at).toBe(START + 1200_000);
  });

  it('should place a runner on the way out of an out-and-back, not on the way back past the same spot', () => {
    const oab = snapCourse(outAndBack.track, MILES);
    const out = placeFixes(oab, startLine, running(outAndBack, 30, 3300)).placed;
    expect(out.distanceMeters).toBeCloseTo(3300 * PACE, -1);
    // A fix drifted 20 m west of the way out, nearer the way back (10 m) than the road the runner is on.
    const drifted = placeFix(oab, out, fixAt(outAndBack, 3330 * PACE, 3330, 15, -20)) as Placed;
    expect(drifted.distanceMeters).toBeCloseTo(3330 * PACE, -1);
    // On the way back: every fix is also 30 m from the way out, which is now behind.
    const home = placeFixes(oab, out, running(outAndBack, 3330, 12_000, 60));
    expect(home.outcomes.every((o) => o === 'accepted')).toBe(true);
    expect(home.placed.distanceMeters).toBeCloseTo(12_000 * PACE, -1);
    expect(home.passages.at(-1)!.markerId).toBe('mi-22');
  });

  it('should place a runner near the start of a loop at the start, and near its end at the finish', () => {
    const lap = snapCourse(loop.track, MILES);
    // In the corral, 5 m short of the start line, which is the finish line too: the start it is.
    expect((placeFix(lap, startLine, fixAt(loop, loop.meters - 5, 20)) as Placed).distanceMeters).toBeLessThan(1);
    const early = placeFix(lap, startLine, fixAt(loop, 60, 20)) as Placed;
    expect(early.distanceMeters).toBeCloseTo(60, -1);
    // The last fix on the start line again, which is the finish line: 42,195 m on.
    const late = placeFixes(lap, early, [...running(loop, 60, 14_000, 120), fixAt(loop, loop.meters, 14_100)]);
    expect(late.outcomes.every((o) => o === 'accepted')).toBe(true);
    expect(late.placed.distanceMeters).toBeGreaterThan(42_000);
    expect(late.passages.at(-1)!.markerId).toBe('finish');
  });
});
