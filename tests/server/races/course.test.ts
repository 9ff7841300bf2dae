import type { LineString, Position } from 'geojson';
import { describe, expect, it } from 'vitest';
import { courseFrom } from '../../../server/races/course.js';
import { readGpx } from '../../../server/races/gpx.js';
import { CourseRefused } from '../../../server/races/refused.js';
import { MARATHON_METERS, markersFor } from '../../../contract/markers.js';
import { courseOf, gpxText, legBetween, legFrom, metersBetween } from '../../../stand-ins/courses.js';

const MARKERS = markersFor(['mi', 'km']);
const SYDNEY: Position = [151.2093, -33.8688];
const BERLIN: Position = [13.3765, 52.5146];
const CHICAGO: Position = [-87.6244, 41.8827];

const lineOf = (track: Position[]): LineString => ({ type: 'LineString', coordinates: track });

/** Every marker but the finish within 0.2 % of its distance of the exact point that far along; the finish at the track's end. */
function expectMarkersAlong(course: ReturnType<typeof courseOf>, placed: ReturnType<typeof courseFrom>['markers']) {
  expect(placed.map((m) => m.id)).toEqual(MARKERS.map((m) => m.id));
  for (const marker of placed) {
    const ours: Position = [marker.lon, marker.lat];
    if (marker.id === 'finish') {
      expect(metersBetween(ours, course.track.at(-1)!), marker.id).toBeLessThan(0.1);
      continue;
    }
    const off = metersBetween(ours, course.at(marker.distanceMeters));
    expect(off, `${marker.id} is ${off.toFixed(2)} m off`).toBeLessThanOrEqual(0.002 * marker.distanceMeters);
  }
}

describe('placing markers along a course', () => {
  it('should place every marker on a long straight line due north along a meridian, as the ellipsoid does', () => {
    // North-south near Sydney is where a sphere goes wrong: 0.25 % over a marathon.
    const course = courseOf([legFrom(SYDNEY, 0, MARATHON_METERS)]);
    const placed = courseFrom(readGpx(gpxText({ tracks: [[course.track]] })), MARKERS);
    expect(placed.lengthMeters).toBeCloseTo(MARATHON_METERS, 3);
    expectMarkersAlong(course, placed.markers);
  });

  it('should place markers along the path of a loop that comes back to its start, not as the crow flies from it', () => {
    // East, north, west and back at Berlin's latitude, where a sphere's east-west error is 0.32 %.
    const east = legFrom(BERLIN, 90, 12_000);
    const north = legFrom(east.at(12_000), 0, 9_100);
    const west = legFrom(north.at(9_100), 270, 12_000);
    const home = legBetween(west.at(12_000), BERLIN);
    const course = courseOf([east, north, west, home]);
    const placed = courseFrom(readGpx(gpxText({ tracks: [[course.track]] })), MARKERS);
    expect(placed.lengthMeters).toBeCloseTo(course.meters, 3);
    expectMarkersAlong(course, placed.markers);
    // Mile 20 is 32 km along the path, on the way home, and far nearer the start than that.
    const mile20 = placed.markers.find((m) => m.id === 'mi-20')!;
    expect(metersBetween(BERLIN, [mile20.lon, mile20.lat])).toBeLessThan(10_000);
    const finish = placed.markers.at(-1)!;
    expect([finish.lon, finish.lat]).toEqual(BERLIN);
  });

  it('should tell the two passes of an out-and-back street apart by the distance along it', () => {
    const half = MARATHON_METERS / 2;
    const out = legFrom(CHICAGO, 0, half);
    const course = courseOf([out, legBetween(out.at(half), CHICAGO)], 40);
    const placed = courseFrom(lineOf(course.track), MARKERS);
    expectMarkersAlong(course, placed.markers);
    // Mile 1 on the way out and mile 25 on the way back are on the same street, 1,609 m and 1,961 m from the start.
    const [mile1, mile25] = ['mi-1', 'mi-25'].map((id) => placed.markers.find((m) => m.id === id)!);
    expect(metersBetween(CHICAGO, [mile1!.lon, mile1!.lat])).toBeCloseTo(1609, 0);
    expect(metersBetween(CHICAGO, [mile25!.lon, mile25!.lat])).toBeCloseTo(MARATHON_METERS - 40_234, 0);
  });

  it('should place the finish at the end of a track a little long, and a marker past the end of a short one at its end', () => {
    const long = courseOf([legFrom(CHICAGO, 45, MARATHON_METERS * 1.008)]);
    const placedLong = courseFrom(lineOf(long.track), MARKERS);
    const end = long.track.at(-1)!;
    expect(metersBetween([placedLong.markers.at(-1)!.lon, placedLong.markers.at(-1)!.lat], end)).toBeLessThan(0.1);
    expect(metersBetween([placedLong.markers.at(-2)!.lon, placedLong.markers.at(-2)!.lat], long.at(26 * 1609.344))).toBeLessThan(1);

    // 41,815 m: mile 26 (41,843 m) is past its end.
    const short = courseOf([legFrom(CHICAGO, 45, MARATHON_METERS * 0.991)]);
    const placedShort = courseFrom(lineOf(short.track), MARKERS);
    const [mile26, finish] = placedShort.markers.slice(-2);
    expect(mile26!.id).toBe('mi-26');
    expect([mile26!.lon, mile26!.lat]).toEqual([finish!.lon, finish!.lat]);
  });

  it('should place markers on a track of several segments and tracks as on one line', () => {
    const course = courseOf([legFrom(BERLIN, 30, MARATHON_METERS)]);
    const [a, b, c] = [course.track.slice(0, 300), course.track.slice(299, 600), course.track.slice(600)];
    const placed = courseFrom(readGpx(gpxText({ tracks: [[a!, b!], [c!]] })), MARKERS);
    expectMarkersAlong(course, placed.markers);
  });
});

describe('refusing a course of the wrong length', () => {
  const lengthOf = (meters: number) => lineOf(courseOf([legFrom(CHICAGO, 0, meters)]).track);
  const refusal = (line: LineString) => {
    try {
      courseFrom(line, MARKERS);
    } catch (err) {
      if (err instanceof CourseRefused) return { problem: err.problem, message: err.message };
      throw err;
    }
    return undefined;
  };
  const advice = 'Check that the GPX is the whole course of this race, from start to finish, and nothing more.';

  it('should refuse a track more than 1 % short of or longer than a marathon, and say by how much', () => {
    expect(refusal(lengthOf(41_700))).toEqual({
      problem: 'wrong_length',
      message: `The course is 41.70 km long, 1.2 % short of a marathon (42.195 km); it must be within 1 %. ${advice}`,
    });
    expect(refusal(lengthOf(21_097.5))?.message).toBe(`The course is 21.10 km long, 50.0 % short of a marathon (42.195 km); it must be within 1 %. ${advice}`);
    expect(refusal(lengthOf(42_700))?.message).toBe(`The course is 42.70 km long, 1.2 % longer than a marathon (42.195 km); it must be within 1 %. ${advice}`);
  });

  it('should take a track within 1 % either way', () => {
    expect(refusal(lengthOf(MARATHON_METERS * 0.9901))).toBeUndefined();
    expect(refusal(lengthOf(MARATHON_METERS * 1.0099))).toBeUndefined();
  });
});
