import type { Position } from 'geojson';
import { describe, expect, it } from 'vitest';
import { MAX_APP_COURSE_POINTS } from '../../../server/races/app-course.js';
import { courseFrom, measure, type Course } from '../../../server/races/course.js';
import { MARATHON_METERS, markersFor } from '../../../contract/markers.js';
import { legFrom, metersBetween } from '../../../stand-ins/courses.js';

const MARKERS = markersFor(['mi', 'km']);
const CENTER: Position = [-87.6244, 41.8827];

/**
 * A loop of 20,000 points around a centre, sized to a marathon, its radius wavering by 6 m every
 * 400 m as streets do, and by 0.5 m every 30 m as a GPS trace does: too fine to keep in 2,000
 * points, so the simplification has to raise its tolerance. `detour` moves one point 110 m north,
 * as a course changed by a road closure.
 */
function wigglyLoop(detour = false): Position[] {
  const n = 20_000;
  const radius = MARATHON_METERS / (2 * Math.PI) / 1.005;
  const wave = (turn: number, amplitude: number, meters: number) => amplitude * Math.sin((2 * Math.PI * turn * MARATHON_METERS) / meters);
  const track = Array.from({ length: n }, (_, i) => {
    const turn = i / (n - 1);
    const r = radius + wave(turn, 6, 400) + wave(turn, 0.5, 30);
    return legFrom(CENTER, 360 * turn, r).at(r);
  });
  track[n - 1] = track[0]!;
  if (detour) track[5_000] = [track[5_000]![0]!, track[5_000]![1]! + 1e-3];
  return track;
}

/** The index of each marker's point among the line's vertices: -1 where it is not exactly one. */
const vertexIndexes = (course: Course) => course.markers.map((m) => course.app.line.coordinates.findIndex(([lon, lat]) => lon === m.lon && lat === m.lat));

describe('the course for the app', () => {
  const track = wigglyLoop();
  const course = courseFrom({ type: 'LineString', coordinates: track }, MARKERS);

  it('should bring a 20,000-point course down to at most 2,000 points, keeping its length and its ends', () => {
    const { coordinates } = course.app.line;
    expect(coordinates.length).toBeLessThanOrEqual(MAX_APP_COURSE_POINTS);
    expect(coordinates.length).toBeGreaterThan(MAX_APP_COURSE_POINTS / 2);
    expect(coordinates[0]).toEqual([Math.round(track[0]![0]! * 1e6) / 1e6, Math.round(track[0]![1]! * 1e6) / 1e6]);
    expect(coordinates.at(-1)).toEqual(coordinates[0]);
    const simplified = measure(coordinates).cumulative.at(-1)!;
    expect(Math.abs(simplified / course.lengthMeters - 1)).toBeLessThan(0.005);
  });

  it('should keep every marker exactly a vertex of the simplified course, in order along it', () => {
    const indexes = vertexIndexes(course);
    expect(
      indexes.every((index) => index >= 0),
      JSON.stringify(indexes),
    ).toBe(true);
    // The finish is the last vertex; the start, at the same place, is the first.
    const ordered = indexes.slice(0, -1);
    expect(ordered).toEqual([...ordered].sort((a, b) => a - b));
    expect(new Set(ordered).size).toBe(ordered.length);
    const finish = course.markers.at(-1)!;
    expect(course.app.line.coordinates.at(-1)).toEqual([finish.lon, finish.lat]);
  });

  it('should place the markers on the whole track, not on its simplified copy', () => {
    const whole = measure(track);
    for (const marker of course.markers.slice(0, -1)) {
      expect(metersBetween([marker.lon, marker.lat], whole.at(marker.distanceMeters).position)).toBeLessThan(0.2);
    }
  });

  it('should serve the line as canonical JSON with a strong ETag, the same for the same course and another for a changed one', () => {
    expect(JSON.parse(course.app.json)).toEqual(course.app.line);
    expect(course.app.json).toBe(JSON.stringify({ type: 'LineString', coordinates: course.app.line.coordinates }));
    expect(course.app.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    const again = courseFrom({ type: 'LineString', coordinates: wigglyLoop() }, MARKERS);
    expect(again.app.json).toBe(course.app.json);
    expect(again.app.etag).toBe(course.app.etag);
    const changed = courseFrom({ type: 'LineString', coordinates: wigglyLoop(true) }, MARKERS);
    expect(changed.app.etag).not.toBe(course.app.etag);
    const milesOnly = courseFrom({ type: 'LineString', coordinates: track }, markersFor(['mi']));
    expect(milesOnly.app.etag).not.toBe(course.app.etag);
  });

  it('should keep a course that fits whole, with the markers put in as vertices', () => {
    const short = Array.from({ length: 1_000 }, (_, i) => legFrom(CENTER, 0, MARATHON_METERS).at((MARATHON_METERS * i) / 999));
    const fits = courseFrom({ type: 'LineString', coordinates: short }, MARKERS);
    // Every track point and every marker but the finish (the last track point), none of them repeated.
    expect(fits.app.line.coordinates).toHaveLength(1_000 + MARKERS.length - 1);
    expect(vertexIndexes(fits).every((index) => index >= 0)).toBe(true);
  });
});
