/**
 * The demo's course and race: a marathon-length loop around a made-up centre (no map needed), open
 * a little so the start and the finish are apart, added to the server with the admin CLI as any
 * race is, in this computer's time zone.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Position } from 'geojson';
import { localSchedule, timeZoneProblem } from '../contract/raceClock.js';
import { MARATHON_METERS } from '../contract/markers.js';
import { gpxText } from '../stand-ins/courses.js';

/** A made-up centre (a field in the middle of nowhere, so no one reads a real street into it). */
const CENTRE = { lon: 9.5, lat: 47.2 };
const METERS_PER_DEGREE = 111_320;
/** The loop leaves this much of the circle open between finish and start. */
const OPEN_DEGREES = 30;

/** The loop's points in metres east/north of the centre, a wobbly circle (a course, not a compass drawing). */
function loopMeters(points: number): Array<[number, number]> {
  const sweep = ((360 - OPEN_DEGREES) * Math.PI) / 180;
  return Array.from({ length: points + 1 }, (_, i) => {
    const a = -Math.PI / 2 + (OPEN_DEGREES * Math.PI) / 360 + (sweep * i) / points;
    const r = 1 + 0.12 * Math.sin(3 * a) + 0.05 * Math.cos(7 * a);
    return [r * Math.cos(a), r * Math.sin(a)];
  });
}

/** The course as [lon, lat], scaled so its length is a marathon (a few metres over, so the finish marker is on it). */
export function demoCourse(): Position[] {
  const unit = loopMeters(900);
  let length = 0;
  for (let i = 1; i < unit.length; i++) length += Math.hypot(unit[i]![0] - unit[i - 1]![0], unit[i]![1] - unit[i - 1]![1]);
  const scale = (MARATHON_METERS + 30) / length;
  const cos = Math.cos((CENTRE.lat * Math.PI) / 180);
  return unit.map(([x, y]) => [CENTRE.lon + (x * scale) / (METERS_PER_DEGREE * cos), CENTRE.lat + (y * scale) / METERS_PER_DEGREE]);
}

export interface AdminCli {
  admin(...args: string[]): Promise<string>;
}

/**
 * The computer's own time zone, as the race's (a race is said in its own clocks). A race's zone
 * must be a city's (contract/raceClock.ts); a computer set to plain UTC (a container, a CI
 * runner) gets Reykjavik's, which is UTC all year.
 */
export function localTimeZone(): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone ?? '';
  return timeZoneProblem(zone) === null ? zone : 'Atlantic/Reykjavik';
}

/** Adds the demo race starting at `startsAt` (whole minutes) on this course; answers its id. */
export async function addDemoRace(server: AdminCli, course: Position[], startsAt: number): Promise<string> {
  const id = `demo-${Date.now().toString(36)}`;
  const timeZone = localTimeZone();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-demo-course-'));
  try {
    const gpx = path.join(dir, 'course.gpx');
    await writeFile(gpx, gpxText({ tracks: [[course]] }));
    const { date, start } = localSchedule(startsAt, timeZone);
    await server.admin('add-race', '--id', id, '--name', 'Demo Marathon', '--date', date, '--timezone', timeZone, '--start', start, '--course', gpx);
    return id;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
