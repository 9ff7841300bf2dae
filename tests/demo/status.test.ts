import { describe, expect, it } from 'vitest';
import { demoCourse } from '../../demo/course.js';
import { courseUnit, distanceText, lastMarkerPassed } from '../../demo/distance.js';
import { demoRunner, type DemoRace } from '../../demo/race.js';
import { demoState, statusLine } from '../../demo/status.js';
import type { NoteTracker } from '../../demo/tracker.js';
import { markersFor } from '../../contract/markers.js';
import type { DistanceUnit } from '../../contract/races.js';

const course = demoCourse();
const runner = demoRunner(course);
const STARTS_AT = Date.parse('2030-10-12T12:30:00Z');

/** The demo's race at `meters` along the course, in these units, with no note sent. */
function stateAt(meters: number, units: readonly DistanceUnit[]) {
  let elapsed = 0;
  while (runner.distanceAt(elapsed) < meters && elapsed < runner.finishMs) elapsed += 1_000;
  const race = {
    runner,
    units,
    markers: markersFor(units).map((m) => ({ ...m, lat: 0, lon: 0 })),
    clock: { now: () => STARTS_AT + elapsed, rate: 120 },
    startsAt: STARTS_AT,
    realMs: runner.finishMs / 120,
  } as unknown as DemoRace;
  const tracker = { snapshot: () => [] } as unknown as NoteTracker;
  return demoState(race, course, tracker, null, false, 'America/Chicago');
}

describe('the demo speaking distances in the units its course is marked in', () => {
  it('should say a course in miles in miles, with the last mile passed: never "2.7 km (past Mile 1)"', () => {
    const state = stateAt(2_700, ['mi']);
    expect(state.runner.distance).toBe('1.7 mi');
    expect(state.runner.lastMarker).toBe('Mile 1');
    expect(statusLine(state)).toMatch(/^Alex 1\.7 mi \(past Mile 1\) · race clock /);
    expect(statusLine(state)).not.toContain('km');
  });

  it('should say a course marked in kilometres in kilometres, with the last kilometre marker passed', () => {
    const state = stateAt(12_300, ['mi', 'km']);
    expect(state.runner.distance).toBe('12.3 km');
    expect(state.runner.lastMarker).toBe('10 km');
    expect(statusLine(state)).toMatch(/^Alex 12\.3 km \(past 10 km\) · /);
  });

  it('should name no marker before the first of its unit', () => {
    expect(statusLine(stateAt(1_000, ['mi']))).toMatch(/^Alex 0\.6 mi · race clock /);
    expect(lastMarkerPassed(4_999, markersFor(['mi', 'km']), 'km')).toBeNull();
  });

  it('should take kilometres only for a race that carries kilometre markers', () => {
    expect(courseUnit(['mi'])).toBe('mi');
    expect(courseUnit(['mi', 'km'])).toBe('km');
    expect(distanceText(42_195, 'mi')).toBe('26.2 mi');
    expect(distanceText(42_195, 'km')).toBe('42.2 km');
  });

  it('should say the finish as the last marker once the runner is across the line, whatever the unit', () => {
    expect(lastMarkerPassed(42_195, markersFor(['mi']), 'mi')).toBe('Finish');
    expect(lastMarkerPassed(42_195, markersFor(['mi', 'km']), 'km')).toBe('Finish');
  });

  it('should stop telling where the runner is once across the line: the finish is an event, told once elsewhere', () => {
    const state = stateAt(Number.POSITIVE_INFINITY, ['mi']);
    expect(state.runner.finished).toEqual({ at: new Date(STARTS_AT + runner.finishMs).toISOString(), time: expect.stringMatching(/^4:0\d:\d\d$/) });
    expect(statusLine(state)).toMatch(/^After the finish · race clock /);
    expect(statusLine(state)).not.toContain('finished');
  });
});
