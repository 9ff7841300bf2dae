import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MARATHON_METERS } from '../../../contract/markers.js';
import { BACKENDS } from '../support/backends.js';
import { runAdmin } from '../support/cli.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { courseOf, gpxText, legFrom, metersBetween } from '../../../stand-ins/courses.js';

const CHICAGO: [number, number] = [-87.6244, 41.8827];
const straight = courseOf([legFrom(CHICAGO, 0, MARATHON_METERS)]);
const bent = courseOf([
  legFrom(CHICAGO, 90, MARATHON_METERS / 2),
  legFrom(legFrom(CHICAGO, 90, MARATHON_METERS / 2).at(MARATHON_METERS / 2), 0, MARATHON_METERS / 2),
]);

const BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE gpx [
  <!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
  ${Array.from({ length: 9 }, (_, i) => `<!ENTITY ${String.fromCharCode(98 + i)} "${`&${String.fromCharCode(97 + i)};`.repeat(10)}">`).join('\n  ')}
]>
<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>&j;</name><trkseg><trkpt lat="41.88" lon="-87.62"/></trkseg></trk></gpx>`;
const EXTERNAL = `<?xml version="1.0"?>
<!DOCTYPE gpx [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>&secret;</name><trkseg><trkpt lat="41.88" lon="-87.62"/><trkpt lat="41.89" lon="-87.62"/></trkseg></trk></gpx>`;

const DOCTYPE =
  'The file declares a DOCTYPE or entities, which a GPX file never needs and we do not read. Export the course again as GPX 1.1 from your course planner or watch app.';

describe.each(BACKENDS)('the race catalogue commands on %s', (kind) => {
  let t: TestApp;
  let env: NodeJS.ProcessEnv;
  let dir: string;
  const file = (name: string) => path.join(dir, name);
  const listRaces = async () => {
    const { code, stdout, stderr } = await runAdmin(env, 'list-races');
    expect(code, stderr).toBe(0);
    return JSON.parse(stdout) as Array<{ id: string; hasCourse: boolean; when: string }>;
  };
  const add = (id: string, ...more: string[]) =>
    runAdmin(env, 'add-race', '--id', id, '--name', 'Lakefront Marathon', '--date', '2099-10-11', '--timezone', 'America/Chicago', '--start', '07:30', ...more);

  beforeAll(async () => {
    t = await startTestApp(kind);
    env = { ...t.backend.env, PORT: '8080', PUBLIC_URL: '' };
    dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-gpx-'));
    await writeFile(file('straight.gpx'), gpxText({ tracks: [[straight.track]] }));
    await writeFile(file('bent.gpx'), gpxText({ tracks: [[bent.track]] }));
    await writeFile(file('waypoints.gpx'), gpxText({ waypoints: straight.track.slice(0, 5) }));
    await writeFile(file('short.gpx'), gpxText({ tracks: [[courseOf([legFrom(CHICAGO, 0, 10_000)]).track]] }));
    await writeFile(file('huge.gpx'), Buffer.alloc(6 * 1024 * 1024, ' '));
    await writeFile(file('laughs.gpx'), BILLION_LAUGHS);
    await writeFile(file('external.gpx'), EXTERNAL);
  });
  afterAll(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('should list the nine races of the spec, each with its zone, start and where it stands', async () => {
    const races = await listRaces();
    expect(races).toHaveLength(9);
    expect(races.find((r) => r.id === 'nyc-2025')).toEqual({
      id: 'nyc-2025',
      name: 'NYC Marathon',
      date: '2025-11-02',
      timezone: 'America/New_York',
      start: '09:10',
      startsAt: '2025-11-02T14:10:00.000Z',
      when: 'past',
      units: ['mi'],
      hasCourse: false,
    });
  });

  it('should add a race with its course, which every server then lists with its markers placed along it', async () => {
    const { code, stdout, stderr } = await add('lakefront-2099', '--units', 'km,mi', '--course', file('straight.gpx'), '--timezone', 'america/chicago');
    expect(code, stderr).toBe(0);
    expect(stderr).toBe('');
    const printed = JSON.parse(stdout);
    expect(printed).toEqual({
      id: 'lakefront-2099',
      name: 'Lakefront Marathon',
      date: '2099-10-11',
      timezone: 'America/Chicago',
      start: '07:30',
      startsAt: '2099-10-11T12:30:00.000Z',
      when: 'upcoming',
      units: ['mi', 'km'],
      hasCourse: true,
      course: { lengthMeters: MARATHON_METERS, points: straight.track.length, appPoints: expect.any(Number), etag: expect.stringMatching(/^".+"$/) },
    });
    const listed = (await t.app.inject({ url: '/api/races' })).json().races.find((r: { id: string }) => r.id === 'lakefront-2099');
    const mile13 = listed.markers.find((m: { id: string }) => m.id === 'mi-13');
    expect(metersBetween([mile13.lon, mile13.lat], straight.at(mile13.distanceMeters))).toBeLessThan(0.002 * mile13.distanceMeters);
    expect((await t.app.inject({ url: '/api/races/lakefront-2099/course' })).headers.etag).toBe(printed.course.etag);
  });

  it('should replace a race’s course with set-course, and add one to a race that had none', async () => {
    const before = (await t.app.inject({ url: '/api/races/lakefront-2099/course' })).headers.etag;
    const replaced = await runAdmin(env, 'set-course', '--race', 'lakefront-2099', '--gpx', file('bent.gpx'));
    expect(replaced.code, replaced.stderr).toBe(0);
    const { etag } = JSON.parse(replaced.stdout);
    expect(etag).not.toBe(before);
    expect((await t.app.inject({ url: '/api/races/lakefront-2099/course' })).headers.etag).toBe(etag);

    expect((await runAdmin(env, 'set-course', '--race', 'chicago-2025', '--gpx', file('straight.gpx'))).code).toBe(0);
    expect((await listRaces()).find((r) => r.id === 'chicago-2025')!.hasCourse).toBe(true);
  });

  it('should make a link for a race that is over, with a warning on stderr, and none for an upcoming race', async () => {
    const over = await runAdmin(env, 'create-link', '--runner', 'Alex', '--race', 'berlin-2025');
    expect(over.code).toBe(0);
    expect(over.stderr).toBe(
      "Warning: the Berlin Marathon is over (it started 2025-09-21 at 09:15, Europe/Berlin). The link works, and its recorder tells friends their notes will wait in the runner's keepsake.\n",
    );
    const { token } = JSON.parse(over.stdout);
    expect((await t.app.inject({ url: `/api/r/${token}` })).json().race.when).toBe('past');
    const upcoming = await runAdmin(env, 'create-link', '--runner', 'Alex', '--race', 'lakefront-2099');
    expect(upcoming.code).toBe(0);
    expect(upcoming.stderr).toBe('');
  });

  it.each([
    [
      ['--timezone', 'Mars/Olympus'],
      "Unknown time zone 'Mars/Olympus'. Give the race city's IANA time zone, e.g. America/Chicago, Europe/Berlin or Australia/Sydney.",
    ],
    [
      ['--timezone', 'EST'],
      "'EST' keeps the same offset all year. Give the race city's IANA time zone (Area/City, e.g. America/New_York), which follows its summer time.",
    ],
    [['--date', '2099-02-29'], '2099-02-29 is not a day on the calendar: that month has 28 days.'],
    [['--date', '11/10/2099'], "Give the race date as YYYY-MM-DD, e.g. 2026-10-11; '11/10/2099' is not in that form."],
    [['--start', '24:30'], '24:30 is not a time of day: hours go from 00 to 23 and minutes from 00 to 59.'],
    [['--start', '7:30am'], "Give the start time as HH:MM on a 24-hour clock, e.g. 07:30 or 13:05; '7:30am' is not in that form."],
    [
      ['--date', '2099-03-08', '--start', '02:30'],
      "02:30 does not exist on 2099-03-08 in America/Chicago: the clocks skip it that night. Give the start time the city's clocks will show.",
    ],
    [['--units', 'km'], "Give --units as mi (mile markers only) or mi,km (kilometre markers as well, as outside the US); 'km' is neither."],
    [['--name', 'Lake\u202Efront'], 'A race name is one line of plain text: remove the control characters (line breaks, tabs, direction marks) from it.'],
    [
      ['--course', 'waypoints.gpx'],
      'The GPX file has no track (<trk>) and no route (<rte>); waypoints alone are not a course. Export the course itself, as a track.',
    ],
    [
      ['--course', 'short.gpx'],
      'The course is 10.00 km long, 76.3 % short of a marathon (42.195 km); it must be within 1 %. Check that the GPX is the whole course of this race, from start to finish, and nothing more.',
    ],
    [
      ['--course', 'huge.gpx'],
      'The file is 6.0 MiB; a course can be at most 5 MiB. Export it as a course or route rather than a recorded activity, or without timestamps, heart rate and other extensions.',
    ],
    [['--course', 'laughs.gpx'], DOCTYPE],
    [['--course', 'external.gpx'], DOCTYPE],
    [['--course', 'missing.gpx'], "Cannot read this file: there is no such file. Give the path of the course's .gpx file."],
  ])('should refuse to add a race given %j, say what to fix, and add nothing', async (options, sentence) => {
    const args = options.map((word, i) => (options[i - 1] === '--course' ? file(word) : word));
    const started = Date.now();
    const result = await add('refused-2099', ...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`${options[0] === '--course' ? `${args[1]}: ` : ''}${sentence}\n`);
    expect(result.stdout).toBe('');
    // Entity expansion neither hangs nor expands: the whole CLI, tsx start included, answers at once.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(await t.app.repo.races.get('refused-2099')).toBeUndefined();
  });

  it.each([
    [
      ['add-race', '--id', 'Chicago_2099'],
      "A race id is lower-case letters and digits, words joined by single hyphens, e.g. chicago-2026; 'Chicago_2099' is not.",
    ],
    [
      ['add-race', '--id', 'chicago-2025'],
      "A race with the id 'chicago-2025' already exists (Chicago Marathon, 2025-10-12). Choose another id, e.g. chicago-2025-2; set-course replaces the course of an existing race.",
    ],
  ])('should refuse the id in %j and leave the catalogue as it was', async ([command, ...idOption], sentence) => {
    const before = await t.app.repo.races.list();
    const result = await runAdmin(
      env,
      command!,
      ...idOption,
      '--name',
      'X',
      '--date',
      '2099-10-11',
      '--timezone',
      'America/Chicago',
      '--start',
      '07:30',
      '--course',
      file('bent.gpx'),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`${sentence}\n`);
    expect(await t.app.repo.races.list()).toEqual(before);
  });

  it('should refuse set-course for an unknown race or a file that is no course, and keep the course there was', async () => {
    const before = (await t.app.inject({ url: '/api/races/lakefront-2099/course' })).headers.etag;
    const unknown = await runAdmin(env, 'set-course', '--race', 'boston-1897', '--gpx', file('straight.gpx'));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /^Unknown race 'boston-1897'\. Race ids: sydney-2025, .*lakefront-2099.*\. add-race adds one; list-races shows them all\.\n$/,
    );
    const laughs = await runAdmin(env, 'set-course', '--race', 'lakefront-2099', '--gpx', file('laughs.gpx'));
    expect(laughs.code).toBe(2);
    expect(laughs.stderr).toBe(`${file('laughs.gpx')}: ${DOCTYPE}\n`);
    const missing = await runAdmin(env, 'set-course', '--race', 'lakefront-2099');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^Missing --gpx\.\n\nUsage: npm run admin/);
    expect((await t.app.inject({ url: '/api/races/lakefront-2099/course' })).headers.etag).toBe(before);
  });
});
