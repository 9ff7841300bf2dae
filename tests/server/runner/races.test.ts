import type { Position } from 'geojson';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { storedCourse } from '../../../server/races/stored-course.js';
import type { NewRace } from '../../../server/db/repository.js';
import { MARATHON_METERS } from '../../../contract/markers.js';
import { BACKENDS } from '../support/backends.js';
import { restartOn } from '../support/app.js';
import { makeLink } from '../support/uploads.js';
import { courseOf, gpxText, legBetween, legFrom, metersBetween } from '../../../stand-ins/courses.js';
import { startRunnerApp, type RunnerTestApp } from './support.js';
import { localSchedule } from '../../../contract/raceClock.js';

interface ListedRace {
  id: string;
  name: string;
  date: string;
  timezone: string;
  startsAt: string;
  when: string;
  units: string[];
  hasCourse: boolean;
  markers: Array<{ id: string; label: string; distanceMeters: number; lat?: number; lon?: number }>;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const BERLIN: Position = [13.3765, 52.5146];
const CHICAGO: Position = [-87.6244, 41.8827];

const race = (id: string, date: string, start: string, timezone: string, units: NewRace['units'] = ['mi']): NewRace => ({
  id,
  name: `Race ${id}`,
  date,
  start,
  timezone,
  units,
});

describe.each(BACKENDS)('the race catalogue over the API on %s', (kind) => {
  let t: RunnerTestApp;
  const listed = async (): Promise<ListedRace[]> => (await t.app.inject({ url: '/api/races' })).json().races;
  const one = async (id: string) => (await listed()).find((r) => r.id === id)!;

  beforeAll(async () => {
    t = await startRunnerApp(kind);
  });
  afterAll(() => t.close());
  afterEach(() => vi.useRealTimers());

  it('should list the nine races of the spec with their zones, starts in UTC and markers, and a race added since', async () => {
    const races = await listed();
    expect(races.map((r) => r.id)).toEqual(expect.arrayContaining(['sydney-2025', 'berlin-2025', 'philadelphia-2025', 'chicago-2099']));
    const berlin = races.find((r) => r.id === 'berlin-2025')!;
    expect(berlin).toEqual({
      id: 'berlin-2025',
      name: 'Berlin Marathon',
      date: '2025-09-21',
      timezone: 'Europe/Berlin',
      startsAt: '2025-09-21T07:15:00.000Z',
      when: 'past',
      units: ['mi', 'km'],
      hasCourse: false,
      markers: expect.any(Array),
    });
    expect(berlin.markers).toContainEqual({ id: 'km-5', label: '5 km', distanceMeters: 5000 });
    expect(races.find((r) => r.id === 'chicago-2099')).toMatchObject({ timezone: 'America/Chicago', startsAt: '2099-10-11T12:30:00.000Z', when: 'upcoming' });
    // Earliest start first: Sydney's 06:00 is the evening before in UTC.
    expect(races[0]!.id).toBe('sydney-2025');
  });

  it('should say upcoming until the start, live from it, and past 8 hours later, around both instants', async () => {
    await t.app.repo.races.add(race('clock-2026', '2026-10-11', '07:30', 'America/Chicago'));
    const startsAt = Date.parse('2026-10-11T12:30:00.000Z');
    vi.useFakeTimers({ toFake: ['Date'] });
    for (const [at, when] of [
      [startsAt - 1, 'upcoming'],
      [startsAt, 'live'],
      [startsAt + 8 * HOUR - 1, 'live'],
      [startsAt + 8 * HOUR, 'past'],
    ] as const) {
      vi.setSystemTime(at);
      expect((await one('clock-2026')).when, new Date(at).toISOString()).toBe(when);
    }
  });

  it('should start races on the right side of a DST change, and count 8 real hours across one', async () => {
    // The second Sunday of March 2026 the US springs forward; the first of November it falls back.
    await t.app.repo.races.add(race('spring-2026', '2026-03-08', '07:00', 'America/New_York'));
    await t.app.repo.races.add(race('fall-2026', '2026-11-01', '07:00', 'America/New_York'));
    // 01:30 happens twice that night: the first, in summer time, is taken; the race runs while the clocks go back.
    await t.app.repo.races.add(race('night-2026', '2026-11-01', '01:30', 'America/New_York'));
    expect((await one('spring-2026')).startsAt).toBe('2026-03-08T11:00:00.000Z');
    expect((await one('fall-2026')).startsAt).toBe('2026-11-01T12:00:00.000Z');
    expect((await one('night-2026')).startsAt).toBe('2026-11-01T05:30:00.000Z');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse('2026-11-01T13:29:59.999Z'));
    expect((await one('night-2026')).when).toBe('live');
    vi.setSystemTime(Date.parse('2026-11-01T13:30:00.000Z'));
    expect((await one('night-2026')).when).toBe('past');
  });

  it('should keep race day as the city calls it in a zone east of UTC, where the start is the day before in UTC', async () => {
    await t.app.repo.races.add(race('sydney-2026', '2026-09-20', '06:00', 'Australia/Sydney', ['mi', 'km']));
    expect(await one('sydney-2026')).toMatchObject({ date: '2026-09-20', timezone: 'Australia/Sydney', startsAt: '2026-09-19T20:00:00.000Z' });
    const token = await makeLink(t.app.repo, 'sydney-2026');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse('2026-09-19T19:59:59.999Z'));
    expect((await t.app.inject({ url: `/api/r/${token}` })).json().race).toEqual({
      id: 'sydney-2026',
      name: 'Race sydney-2026',
      date: '2026-09-20',
      units: ['mi', 'km'],
      timezone: 'Australia/Sydney',
      startsAt: '2026-09-19T20:00:00.000Z',
      when: 'upcoming',
    });
    vi.setSystemTime(Date.parse('2026-09-19T20:00:00.000Z'));
    expect((await t.app.inject({ url: `/api/r/${token}` })).json().race.when).toBe('live');
  });

  it('should let a runner enter an upcoming or a live race, and refuse one that ended a minute ago', async () => {
    const now = Date.now();
    // Tokyo keeps one offset all year: no start here can fall in a gap.
    const live = localSchedule(now - MINUTE, 'Asia/Tokyo');
    const over = localSchedule(now - 8 * HOUR - 2 * MINUTE, 'Asia/Tokyo');
    await t.app.repo.races.add(race('live-race', live.date, live.start, 'Asia/Tokyo'));
    await t.app.repo.races.add(race('just-over', over.date, over.start, 'Asia/Tokyo'));
    expect((await one('live-race')).when).toBe('live');
    const session = await t.signIn();
    expect((await t.call(session, 'POST', '/api/entries', { raceId: 'live-race', displayName: 'Jo' })).statusCode).toBe(201);
    expect((await t.call(session, 'POST', '/api/entries', { raceId: 'chicago-2099', displayName: 'Jo' })).statusCode).toBe(201);
    const refused = await t.call(session, 'POST', '/api/entries', { raceId: 'just-over', displayName: 'Jo' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({
      error: 'race_over',
      message: `The Race just-over (${over.date}) is over, so it can no longer be entered. Choose a race that has not finished yet.`,
    });
    expect(
      (await t.call(session, 'GET', '/api/entries'))
        .json()
        .entries.map((e: { race: { id: string } }) => e.race.id)
        .sort(),
    ).toEqual(['chicago-2099', 'live-race']);
  });

  it('should place every marker of a long straight course along it, within 0.2 % of its distance, and serve the course', async () => {
    const course = courseOf([legFrom(CHICAGO, 20, MARATHON_METERS)]);
    await t.app.repo.races.add({
      ...race('straight-2099', '2099-05-03', '08:00', 'America/Chicago', ['mi', 'km']),
      course: storedCourse(gpxText({ tracks: [[course.track]] }), ['mi', 'km']),
    });
    const listedRace = await one('straight-2099');
    expect(listedRace.hasCourse).toBe(true);
    expect(listedRace.markers).toHaveLength(35);
    for (const marker of listedRace.markers) {
      const off = metersBetween([marker.lon!, marker.lat!], marker.id === 'finish' ? course.track.at(-1)! : course.at(marker.distanceMeters));
      expect(off, `${marker.id} is ${off.toFixed(2)} m off`).toBeLessThanOrEqual(marker.id === 'finish' ? 0.1 : 0.002 * marker.distanceMeters);
    }
    const res = await t.app.inject({ url: '/api/races/straight-2099/course' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/geo\+json/);
    const line = res.json();
    expect(line.type).toBe('LineString');
    expect(line.coordinates.length).toBeLessThanOrEqual(2000);
    for (const marker of listedRace.markers) expect(line.coordinates, marker.id).toContainEqual([marker.lon, marker.lat]);
  });

  it('should place markers along the path of a loop, mile 20 on the way home near the start, the finish at the start', async () => {
    const east = legFrom(BERLIN, 90, 12_000);
    const north = legFrom(east.at(12_000), 0, 9_100);
    const west = legFrom(north.at(9_100), 270, 12_000);
    const course = courseOf([east, north, west, legBetween(west.at(12_000), BERLIN)]);
    await t.app.repo.races.add(race('loop-2099', '2099-09-27', '09:15', 'Europe/Berlin', ['mi', 'km']));
    expect(await t.app.repo.races.setCourse('loop-2099', storedCourse(gpxText({ tracks: [[course.track]] }), ['mi', 'km']))).toBe(true);
    const markers = (await one('loop-2099')).markers;
    for (const marker of markers.slice(0, -1)) {
      expect(metersBetween([marker.lon!, marker.lat!], course.at(marker.distanceMeters)), marker.id).toBeLessThanOrEqual(0.002 * marker.distanceMeters);
    }
    const mile20 = markers.find((m) => m.id === 'mi-20')!;
    expect(metersBetween(BERLIN, [mile20.lon!, mile20.lat!])).toBeLessThan(10_000);
    expect([markers.at(-1)!.lon, markers.at(-1)!.lat]).toEqual(BERLIN);
    const stored = await t.app.repo.races.course('loop-2099');
    expect(stored!.line).toEqual(course.track.map(([lon, lat]) => [lon, lat]));
    expect(stored!.markers.find((m) => m.id === 'mi-20')).toEqual({ id: 'mi-20', label: 'Mile 20', distanceMeters: 32187, lat: mile20.lat, lon: mile20.lon });
  });

  it('should answer a course with a strong ETag, 304 to a copy that is current, and 200 with the new one once it changes', async () => {
    const url = '/api/races/loop-2099/course';
    const first = await t.app.inject({ url });
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await t.app.inject({ url, headers: { 'if-none-match': ifNoneMatch } });
      expect(again.statusCode, ifNoneMatch).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers.etag).toBe(etag);
    }
    expect((await t.app.inject({ url, headers: { 'if-none-match': '"other"' } })).statusCode).toBe(200);
    const longer = courseOf([legFrom(BERLIN, 90, MARATHON_METERS * 1.005)]);
    await t.app.repo.races.setCourse('loop-2099', storedCourse(gpxText({ tracks: [[longer.track]] }), ['mi', 'km']));
    const changed = await t.app.inject({ url, headers: { 'if-none-match': etag } });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
  });

  it('should answer 404 with a sentence for a race without a course and for a race there is not', async () => {
    const none = await t.app.inject({ url: '/api/races/chicago-2099/course' });
    expect(none.statusCode).toBe(404);
    expect(none.json()).toEqual({
      error: 'no_course',
      message:
        'We don’t have the course of the Chicago Marathon yet: its markers are known by their distance only, and positions can’t be placed on it. Ask again closer to race day.',
    });
    const unknown = await t.app.inject({ url: '/api/races/boston-1897/course' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: 'race_not_found', message: 'We don’t have that race. Pick one from the list of races.' });
  });

  it('should show a race and a new course to a second server the moment the first writes them', async () => {
    const second = await restartOn(t.backend);
    try {
      // The second server has read the course before, so a stale copy would show here.
      const before = await second.repo.races.course('loop-2099');
      expect(before).toBeDefined();
      await t.app.repo.races.add(race('added-2099', '2099-04-20', '10:00', 'America/New_York'));
      expect((await second.inject({ url: '/api/races' })).json().races.map((r: { id: string }) => r.id)).toContain('added-2099');
      const straight = courseOf([legFrom(BERLIN, 0, MARATHON_METERS)]);
      await t.app.repo.races.setCourse('loop-2099', storedCourse(gpxText({ tracks: [[straight.track]] }), ['mi', 'km']));
      const after = await second.repo.races.course('loop-2099');
      expect(after!.etag).not.toBe(before!.etag);
      expect(after!.line).toHaveLength(straight.track.length);
      expect((await second.inject({ url: '/api/races/loop-2099/course' })).headers.etag).toBe(after!.etag);
    } finally {
      await second.close();
    }
  });
});
