/**
 * edit-race, remove-race and race-history, as an operator runs them on race morning
 * against a running server: what the server answers after a start moves (the race list, the
 * recorder's link, the app's sync, held across the move or not) and the deadlines of the notes
 * waiting for conversion; and every refusal, after which nothing has changed. Two server processes
 * on one PostgreSQL see a moved start too: tests/server/ops/two-servers.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntryNotes, Session } from '../../../contract/runnerApi.js';
import { localSchedule } from '../../../contract/raceClock.js';
import { storedCourse } from '../../../server/races/stored-course.js';
import { gpxText } from '../../../stand-ins/courses.js';
import { startRunnerApp, type RunnerTestApp } from '../runner/support.js';
import { BACKENDS } from '../support/backends.js';
import { runAdmin } from '../support/cli.js';
import { positionAt, STRAIGHT, startRace } from '../support/live-race.js';
import { UPCOMING } from '../support/races.js';

const MINUTE = 60_000;
const CHICAGO = 'America/Chicago';

/** The zone (Area/City) where `hoursAgo` hours ago was earlier today, whatever the hour: its date today and the start then. */
function earlierToday(hoursAgo: number, now = Date.now()): { timezone: string; date: string; start: string } {
  for (const timezone of ['Pacific/Kiritimati', 'Asia/Tokyo', 'Europe/Berlin', 'America/Chicago', 'Pacific/Honolulu', 'Pacific/Pago_Pago']) {
    const then = localSchedule(now - hoursAgo * 3600_000, timezone);
    if (then.date === localSchedule(now, timezone).date) return { timezone, ...then };
  }
  throw new Error('no zone where that was today');
}

describe.each(BACKENDS)('editing and removing races on %s', (kind) => {
  let t: RunnerTestApp;
  let env: NodeJS.ProcessEnv;
  const admin = (...args: string[]) => runAdmin(env, ...args);
  /** The server's answer: the CLI runs on connections of its own, as from another machine (tests/server/ops/two-servers.test.ts: two server processes). */
  const fromServer = async (url: string, session?: Session) => {
    const res = await t.app.inject({ url, headers: session ? { authorization: `Bearer ${session.accessToken}` } : {} });
    return { status: res.statusCode, cacheControl: res.headers['cache-control'], body: res.json() };
  };
  const listed = async (id: string) => (await fromServer('/api/races')).body.races.find((r: { id: string }) => r.id === id);

  beforeAll(async () => {
    t = await startRunnerApp(kind);
    env = { ...t.backend.env, PUBLIC_URL: '' };
  });
  afterAll(() => t.close());
  const courseOf = async (race: string) => (await fromServer(`/api/races/${race}/course`)).body;

  it('should move a live race’s start (a delay told after the planned gun): the server gives the new one at once, and the waiting notes’ deadlines move, a placed runner’s kept', async () => {
    const start = await startRace(t.app.repo, UPCOMING.chicago.id, 10);
    const placed = await t.signIn();
    const placedEntry = await t.enter(placed);
    await t.call(placed, 'PATCH', `/api/entries/${placedEntry.id}`, { shareProgress: true });
    // In the corral and off: 3 m/s from a minute after the gun, past Mile 1.
    const positions = [1, 3, 5, 7, 9].map((m) => positionAt((m - 1) * 60 * 3 + 180, start + m * MINUTE));
    expect((await t.call(placed, 'POST', `/api/entries/${placedEntry.id}/positions`, { positions })).json().progress.lastMarker.id).toBe('mi-1');
    const waiting = await t.signIn();
    const waitingEntry = await t.enter(waiting);
    const placedNote = await t.sendNote(placedEntry.token, { marker: 'mi-20', convert: false });
    const waitingNote = await t.sendNote(waitingEntry.token, { marker: 'mi-20', convert: false });
    const due = { placed: (await t.app.repo.jobs.deadline(placedNote))!, waiting: (await t.app.repo.jobs.deadline(waitingNote))! };
    expect((await t.app.repo.jobs.deadlineStats(Date.now())).live).toBe(2);

    // The app holds a sync request open as the start moves.
    const { cursor } = (await fromServer(`/api/entries/${waitingEntry.id}/notes`, waiting)).body as EntryNotes;
    const held = fromServer(`/api/entries/${waitingEntry.id}/notes?after=${cursor}&wait=25`, waiting);
    await expect.poll(() => t.app.noteChanges.held(), { timeout: 10_000, interval: 20 }).toBe(1);

    const moved = start + 45 * MINUTE;
    const to = localSchedule(moved, CHICAGO);
    const from = localSchedule(start, CHICAGO);
    const edit = await admin('edit-race', '--id', UPCOMING.chicago.id, '--date', to.date, '--start', to.start);
    expect(edit.code, edit.stderr).toBe(0);
    const startsAt = new Date(moved).toISOString();
    const was = new Date(start).toISOString();
    expect(JSON.parse(edit.stdout)).toMatchObject({
      id: UPCOMING.chicago.id,
      date: to.date,
      start: to.start,
      startsAt,
      when: 'upcoming',
      changed: to.date === from.date ? ['start'] : ['date', 'start'],
      before: { date: from.date, start: from.start, timezone: CHICAGO, startsAt: was },
      notesRescheduled: 2,
    });
    expect(edit.stderr).toBe(
      `Changed the race chicago-2099: start moved from ${from.start} ${CHICAGO} on ${from.date} (${was.slice(11, 16)} UTC) to ${to.start} ${CHICAGO} on ${to.date} ` +
        `(${startsAt.slice(11, 16)} UTC), 45 minutes later; 2 notes waiting for conversion rescheduled. Every server sees it on its next request.\n`,
    );

    // The app's race list and the recorder's link, neither cached anywhere on the way.
    const races = await fromServer('/api/races');
    expect(races.cacheControl).toBe('no-store');
    expect(races.body.races.find((r: { id: string }) => r.id === UPCOMING.chicago.id)).toMatchObject({ startsAt, when: 'upcoming' });
    const link = await fromServer(`/api/r/${placedEntry.token}`);
    expect(link.cacheControl).toBe('no-store');
    expect(link.body.race).toMatchObject({ startsAt, when: 'upcoming' });
    // Not live any more: no progress and no times at the markers until the new gun.
    expect(link.body.progress).toBeUndefined();
    expect(link.body.estimates).toBeUndefined();
    // The app's sync: the request held across the move (a friend's note ends the hold), and the next.
    const later = await t.sendNote(waitingEntry.token, { marker: 'mi-5', convert: false });
    expect((await held).body).toMatchObject({ markers: [{ marker: 'mi-5', notes: [{ id: later }] }], raceStartsAt: startsAt });
    expect((await fromServer(`/api/entries/${waitingEntry.id}/notes`, waiting)).body.raceStartsAt).toBe(startsAt);

    // The queue: the unplaced runner's deadline moves with the gun, the placed runner's stays where their position puts it,
    // and both notes wait as notes of a race to come, behind any live race's.
    expect(await t.app.repo.jobs.deadline(waitingNote)).toBe(due.waiting + 45 * MINUTE);
    expect(await t.app.repo.jobs.deadline(placedNote)).toBe(due.placed);
    expect(await t.app.repo.jobs.deadlineStats(Date.now())).toMatchObject({ live: 0 });

    const history = JSON.parse((await admin('race-history', '--id', UPCOMING.chicago.id)).stdout);
    expect(history.at(-1)).toMatchObject({ action: 'edited', before: { startsAt: was }, after: { startsAt }, by: expect.stringContaining('@') });
    for (const id of [placedNote, waitingNote, later]) await t.app.repo.jobs.markFailed(id, 'test: done with it');
  }, 60_000);

  describe('refusals', () => {
    const overToday = earlierToday(9);
    it.each([
      [
        ['--id', 'boston-1897', '--start', '08:00'],
        /^Unknown race 'boston-1897'\. Race ids: .*berlin-2099.*\. add-race adds one; list-races shows them all\.$/,
      ],
      [
        ['--timezone', 'Mars/Olympus'],
        "Unknown time zone 'Mars/Olympus'. Give the race city's IANA time zone, e.g. America/Chicago, Europe/Berlin or Australia/Sydney. Nothing was changed.",
      ],
      [
        ['--timezone', 'EST'],
        "'EST' keeps the same offset all year. Give the race city's IANA time zone (Area/City, e.g. America/New_York), which follows its summer time. Nothing was changed.",
      ],
      [['--date', '2099-02-29'], '2099-02-29 is not a day on the calendar: that month has 28 days. Nothing was changed.'],
      [['--start', '7:30am'], "Give the start time as HH:MM on a 24-hour clock, e.g. 07:30 or 13:05; '7:30am' is not in that form. Nothing was changed."],
      [
        ['--date', '2099-03-29', '--start', '02:30'],
        "02:30 does not exist on 2099-03-29 in Europe/Berlin: the clocks skip it that night. Give the start time the city's clocks will show. Nothing was changed.",
      ],
      [
        ['--date', '2020-09-27'],
        /^2020-09-27 is in the past \(it is \d{4}-\d\d-\d\d in Europe\/Berlin\), and the Berlin Marathon has not been run yet: check the day and the year\. Nothing was changed\.$/,
      ],
      [
        ['--timezone', overToday.timezone, '--date', overToday.date, '--start', overToday.start],
        `A start at ${overToday.start} on ${overToday.date} (${overToday.timezone}) would put the Berlin Marathon over at once (a race is live for 8 hours from its start). Nothing was changed.`,
      ],
      [
        ['--name', 'Berlin\u202EMarathon'],
        'A race name is one line of plain text: remove the control characters (line breaks, tabs, direction marks) from it. Nothing was changed.',
      ],
      [
        ['--units', 'km'],
        "Give --units as mi (mile markers only) or mi,km (kilometre markers as well, as outside the US); 'km' is neither. Nothing was changed.",
      ],
      [
        ['--id', 'chicago-2025', '--date', '2099-10-12'],
        'The Chicago Marathon is over (it started 2025-10-12 at 07:30, America/Chicago) and runners hold 1 link for it: a race that was run keeps its notes as their keepsakes ' +
          'and cannot be run again. Add the next edition as a race of its own (add-race). Nothing was changed.',
      ],
    ])('should refuse edit-race %j, say what to fix, and change nothing', async (options, sentence) => {
      if ((await t.app.repo.races.holdings('chicago-2025')).links === 0)
        expect((await admin('create-link', '--runner', 'Alex', '--race', 'chicago-2025')).code).toBe(0);
      const args = options[0] === '--id' ? options : ['--id', UPCOMING.berlin.id, ...options];
      const [races, history] = [await t.app.repo.races.list(), await t.app.repo.races.history()];
      const result = await admin('edit-race', ...args);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      if (typeof sentence === 'string') expect(result.stderr).toBe(`${sentence}\n`);
      else expect(result.stderr.trimEnd()).toMatch(sentence);
      expect(await t.app.repo.races.list()).toEqual(races);
      expect(await t.app.repo.races.history()).toEqual(history);
    });

    it.each([
      [[], /^Give at least one of --date, --start, --timezone, --name, --units, --image\.\n\nUsage: npm run admin/],
      [['--course', 'berlin.gpx'], /^Unknown option '--course'.*\n\nUsage: npm run admin/],
      [['--start'], /^Missing --start\.\n\nUsage: npm run admin/],
    ])('should answer edit-race %j with what to give and the usage', async (options, said) => {
      const result = await admin('edit-race', '--id', UPCOMING.berlin.id, ...options);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(said);
    });
  });

  it('should correct a race that is over while it stays over, and move one nobody holds out of a wrong year', async () => {
    const corrected = await admin('edit-race', '--id', 'chicago-2025', '--start', '07:45', '--name', 'Bank of America Chicago Marathon');
    expect(corrected.code, corrected.stderr).toBe(0);
    expect(JSON.parse(corrected.stdout)).toMatchObject({
      start: '07:45',
      startsAt: '2025-10-12T12:45:00.000Z',
      when: 'past',
      name: 'Bank of America Chicago Marathon',
      notesRescheduled: 0,
    });
    // nyc-2025 was added with the wrong year, say, and nobody has entered it or holds a link.
    const reopened = await admin('edit-race', '--id', 'nyc-2025', '--date', '2099-11-01');
    expect(reopened.code, reopened.stderr).toBe(0);
    expect(await listed('nyc-2025')).toMatchObject({ date: '2099-11-01', when: 'upcoming' });
    // The same again: nothing to change, and nothing in the history.
    const before = await t.app.repo.races.history('nyc-2025');
    const again = await admin('edit-race', '--id', 'nyc-2025', '--date', '2099-11-01');
    expect(again).toMatchObject({ code: 0, stderr: 'Nothing to change: the race nyc-2025 already has these.\n' });
    expect(await t.app.repo.races.history('nyc-2025')).toEqual(before);
  });

  it('should place the kilometre markers on the course when they are added, and keep them while notes are pinned to one', async () => {
    const race = UPCOMING.nyc.id;
    expect(await t.app.repo.races.setCourse(race, storedCourse(gpxText({ tracks: [[STRAIGHT.track]] }), ['mi']))).toBe(true);
    const before = (await courseOf(race)).coordinates;
    const etag = (await t.app.repo.races.appCourse(race))!.etag;
    const added = await admin('edit-race', '--id', race, '--units', 'mi,km');
    expect(added.code, added.stderr).toBe(0);
    const km5 = (await listed(race)).markers.find((m: { id: string }) => m.id === 'km-5');
    expect(km5).toMatchObject({ distanceMeters: 5000, lat: expect.any(Number), lon: expect.any(Number) });
    // Every marker is a vertex of the app's course: the new one too, under a new ETag.
    expect(before).not.toContainEqual([km5.lon, km5.lat]);
    expect((await courseOf(race)).coordinates).toContainEqual([km5.lon, km5.lat]);
    expect((await t.app.repo.races.appCourse(race))!.etag).not.toBe(etag);

    const session = await t.signIn();
    const entry = await t.enter(session, race);
    await t.sendNote(entry.token, { marker: 'km-5' });
    const [races, history] = [await t.app.repo.races.list(), await t.app.repo.races.history()];
    const dropped = await admin('edit-race', '--id', race, '--units', 'mi');
    expect(dropped).toMatchObject({
      code: 2,
      stdout: '',
      stderr: '1 note is pinned to kilometre markers of the NYC Marathon: its units stay mi,km. Nothing was changed.\n',
    });
    expect(await t.app.repo.races.list()).toEqual(races);
    expect(await t.app.repo.races.history()).toEqual(history);
  });

  it('should remove a race added by mistake, for good, and refuse one a runner entered or holds a link for', async () => {
    const add = (id: string) =>
      admin('add-race', '--id', id, '--name', 'Mistake Marathon', '--date', '2099-05-03', '--timezone', 'Europe/Paris', '--start', '08:30');
    expect((await add('entered-2099')).code).toBe(0);
    await t.enter(await t.signIn(), 'entered-2099');
    expect(await admin('remove-race', '--id', 'entered-2099')).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'The Mistake Marathon (entered-2099) cannot be removed: 1 runner has entered it from the app, and there is 1 link made for it. ' +
        'A race with runners or links stays, as their notes do; edit-race corrects it. Nothing was changed.\n',
    });

    expect((await add('mistake-2099')).code).toBe(0);
    const { token } = JSON.parse((await admin('create-link', '--runner', 'Alex', '--race', 'mistake-2099')).stdout);
    expect((await admin('revoke-link', '--token', token)).code).toBe(0);
    expect(await admin('remove-race', '--id', 'mistake-2099')).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'The Mistake Marathon (mistake-2099) cannot be removed: there is 1 link made for it (1 revoked). A race with runners or links stays, as their notes do; edit-race corrects it. Nothing was changed.\n',
    });

    expect((await add('typo-2099')).code).toBe(0);
    const removed = await admin('remove-race', '--id', 'typo-2099');
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stderr).toBe('Removed the race typo-2099: "Mistake Marathon", 08:30 Europe/Paris on 2099-05-03 (06:30 UTC), units mi.\n');
    expect(await listed('typo-2099')).toBeUndefined();
    expect((await admin('remove-race', '--id', 'typo-2099')).stderr).toMatch(/^Unknown race 'typo-2099'/);
    // A race of the spec's nine is seeded on every start: removed, it stays removed.
    expect((await admin('remove-race', '--id', 'long-beach-2025')).code).toBe(0);
    await t.app.repo.migrate();
    expect(await t.app.repo.races.get('long-beach-2025')).toBeUndefined();
    expect(JSON.parse((await admin('race-history', '--id', 'typo-2099')).stdout)).toEqual([
      {
        raceId: 'typo-2099',
        at: expect.any(String),
        by: expect.any(String),
        action: 'removed',
        before: expect.objectContaining({ name: 'Mistake Marathon', startsAt: '2099-05-03T06:30:00.000Z' }),
      },
    ]);
  });
});
