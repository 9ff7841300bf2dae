import { rm } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compressedClock, MAX_RATE, realClock, type Clock } from '../../server/clock.js';
import { DEVICE_COOKIE } from '../../server/devices/cookie.js';
import { startRunnerApp, type RunnerTestApp } from './runner/support.js';
import { BACKENDS, createBackend } from './support/backends.js';
import { runAdmin } from './support/cli.js';
import { positionAt, startRace } from './support/live-race.js';
import { UPCOMING } from './support/races.js';
import { killHard, startServerProcess, type ServerProcess } from '../../kit/serverProcess.js';
import { append, partialCreation, send } from './support/resumable.js';
import { fakeWebm, makeLink, putNote } from './support/uploads.js';

const MINUTE = 60_000;
const PACE = 3; // m/s

/** `read()` with the real time before and after it: what it read must lie between what `expected` gives for them. */
function readBetween(read: () => number, expected: (realMs: number) => number): void {
  const before = Date.now();
  const value = read();
  const after = Date.now();
  expect(value).toBeGreaterThanOrEqual(expected(before));
  expect(value).toBeLessThanOrEqual(expected(after));
}

describe('the server’s clock', () => {
  it('should read the real time at rate 1 by default', () => {
    expect(realClock.rate).toBe(1);
    readBetween(realClock.now, (real) => real);
  });

  it('compressed: should read its start at its origin and run `rate` times as fast from there', () => {
    let real = 1_000_000;
    const clock = compressedClock({ rate: 49, origin: real, startsAt: 5_000_000, realNow: () => real });
    expect(clock.rate).toBe(49);
    expect(clock.now()).toBe(5_000_000);
    real += 1_000;
    expect(clock.now()).toBe(5_049_000);
    // Without a start it reads the real time at its origin, and runs ahead of it from then on.
    const demo = compressedClock({ rate: 16, origin: Date.now() - 1_000 });
    readBetween(demo.now, (now) => now - 1_000 + 16 * 1_000);
  });

  it('compressed: two clocks made alike read alike (the demo and its server, in two processes)', () => {
    const origin = Date.now();
    const [a, b] = [compressedClock({ rate: 120, origin }), compressedClock({ rate: 120, origin })];
    const readA = a.now();
    const readB = b.now();
    expect(readB - readA).toBeGreaterThanOrEqual(0);
    expect(readB - readA).toBeLessThan(120 * 50);
  });

  it('compressed: should refuse a rate below 1, above MAX_RATE or not a number, and an origin not a number', () => {
    for (const rate of [0.5, MAX_RATE + 1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => compressedClock({ rate, origin: 0 }), String(rate)).toThrow(/rate must be from 1/);
    }
    expect(() => compressedClock({ rate: 2, origin: Number.NaN })).toThrow(/finite origin/);
  });
});

describe.each(BACKENDS)('an app on a compressed clock on %s (the demo’s server)', (kind) => {
  let t: RunnerTestApp;
  let clock: Clock;
  let start: number;
  beforeAll(async () => {
    // The app's clock reads two and a half hours ahead and runs 60 times as fast; the race starts
    // in two hours on the real clock: to come on the real clock, half an hour old on the app's.
    clock = compressedClock({ rate: 60, origin: Date.now(), startsAt: Date.now() + 150 * MINUTE });
    t = await startRunnerApp(kind, {}, { clock });
    start = await startRace(t.app.repo, UPCOMING.chicago.id, -120);
  });
  afterAll(() => t?.close());

  it('should say where the race stands, take positions, estimate, stamp notes and tell the recorder, all on its clock', async () => {
    expect(t.app.clock).toBe(clock);
    const races = (await t.call(undefined, 'GET', '/api/races')).json().races as Array<{ id: string; when: string }>;
    expect(races.find((r) => r.id === UPCOMING.chicago.id)?.when, 'live on the app’s clock, to come on the real one').toBe('live');

    const session = await t.signIn();
    const entry = await t.enter(session);
    await t.call(session, 'PATCH', `/api/entries/${entry.id}`, { shareProgress: true });
    // Fixes the phone took on the app's clock: the first 25 minutes at 3 m/s (Mile 2 passed at about 17.9 minutes).
    const positions = Array.from({ length: 25 }, (_, i) => positionAt((i + 1) * 60 * PACE, start + (i + 1) * MINUTE));
    const posted = await t.call(session, 'POST', `/api/entries/${entry.id}/positions`, { positions });
    expect(posted.statusCode, posted.body).toBe(200);
    expect(posted.json()).toMatchObject({ accepted: 25, ignored: [], progress: { lastMarker: { id: 'mi-2' } } });

    const before = clock.now();
    const answer = (await t.app.inject({ url: `/api/r/${entry.token}` })).json();
    const after = clock.now();
    expect(answer.race.when).toBe('live');
    expect(answer.clock.rate).toBe(60);
    const told = Date.parse(answer.clock.now);
    expect(told).toBeGreaterThanOrEqual(before);
    expect(told).toBeLessThanOrEqual(after);
    expect(answer.estimates.madeAt).toBe(answer.clock.now);
    expect(Math.abs(Date.parse(answer.progress.lastMarker.passedAt) - (start + ((2 * 1609.344) / PACE) * 1000))).toBeLessThan(MINUTE);
    expect(Date.parse(answer.estimates.markers[0].at)).toBeGreaterThan(start + 25 * MINUTE);

    // A note for Mile 1, passed: stamped on the app's clock, and due at once on it (not at the passage, long before).
    const noteId = randomUUID();
    const sentAt = clock.now();
    const res = await putNote(t.app, { token: entry.token, noteId, body: fakeWebm(), marker: 'mi-1' });
    expect(res.statusCode, res.body).toBe(201);
    const received = Date.parse(res.json().receivedAt);
    expect(received).toBeGreaterThanOrEqual(sentAt);
    expect(received).toBeLessThanOrEqual(clock.now());
    expect(await t.app.repo.jobs.deadline(noteId)).toBe(received);
  });

  it('should tell the home screen’s list where the race stands on its clock', async () => {
    const opened = await t.app.inject({ url: `/api/r/${await makeLink(t.app.repo, UPCOMING.chicago.id)}` });
    const cookie = opened.cookies.find((c) => c.name === DEVICE_COOKIE)!;
    const listed = await t.app.inject({ url: '/api/device/links', headers: { cookie: `${DEVICE_COOKIE}=${cookie.value}` } });
    expect(
      listed.json().links.map((l: { race: { when: string } }) => l.race.when),
      'live on the app’s clock, to come on the real one',
    ).toEqual(['live']);
  });

  it('should keep a resumable upload’s expiry on the real clock, and stamp the note it becomes on its own', async () => {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const token = await makeLink(t.app.repo, UPCOMING.chicago.id);
    const [noteId, note] = [randomUUID(), fakeWebm(20_000)];
    const expiryMs = t.backend.config.uploadExpiryMs;
    const before = Date.now();
    const created = await send(base, partialCreation(token, noteId, note, 10_000));
    const after = Date.now();
    expect(created.status, created.body).toBe(201);
    // Two and a half hours ahead on the app's clock: an expiry taken from it would be that much later.
    const { expiresAt } = (await t.app.repo.uploads.find(noteId))!;
    expect(expiresAt).toBeGreaterThanOrEqual(before + expiryMs);
    expect(expiresAt).toBeLessThanOrEqual(after + expiryMs);
    const maxAge = Number(/max-age=(\d+)/.exec(String(created.headers['upload-limit']))?.[1]);
    expect(Math.abs(maxAge - expiryMs / 1000)).toBeLessThanOrEqual(2);

    const sentAt = clock.now();
    const completed = await send(base, append(token, noteId, note, 10_000));
    expect(completed.status, completed.body).toBe(201);
    const received = Date.parse(JSON.parse(completed.body).receivedAt);
    expect(received).toBeGreaterThanOrEqual(sentAt);
    expect(received).toBeLessThanOrEqual(clock.now());
  });
});

describe('npm start (server/index.ts)', () => {
  let proc: ServerProcess | undefined;
  let dataDir: string | undefined;
  afterAll(async () => {
    if (proc) await killHard(proc);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('cannot be put on a compressed clock: what a naive server would read for one, it ignores', async () => {
    const backend = await createBackend('sqlite');
    dataDir = backend.env.DATA_DIR;
    const made = await runAdmin(backend.env, 'create-link', '--runner', 'Alex', '--race', 'chicago-2025');
    const token = /\/r\/([A-Za-z0-9_-]+)/.exec(made.stdout)?.[1];
    expect(token, made.stdout + made.stderr).toBeDefined();
    // The Chicago race of 2025 is over; on any of these clocks it would be live, or a race run fast.
    const raceMorning = String(Date.parse('2025-10-12T13:00:00Z'));
    const clockSettings = Object.fromEntries(
      ['CLOCK_RATE', 'CLOCK_SPEED', 'SERVER_CLOCK_RATE', 'DEMO_CLOCK_RATE', 'TIME_RATE', 'TIME_SCALE', 'TIME_COMPRESSION', 'COMPRESSION', 'RATE']
        .map((name) => [name, '60'])
        .concat(
          ['CLOCK_ORIGIN', 'CLOCK_START', 'CLOCK_NOW', 'SERVER_CLOCK', 'DEMO_CLOCK', 'DEMO_CLOCK_ORIGIN', 'FAKE_NOW', 'NOW', 'START_TIME'].map((name) => [
            name,
            raceMorning,
          ]),
        ),
    );
    // `npm start -- …` hands its arguments to the process that runs server/index.ts: the demo's own flags among them.
    proc = await startServerProcess({ ...backend.env, ...clockSettings }, 60_000, [
      '--clock-origin',
      String(Date.now()),
      '--clock-start',
      raceMorning,
      '--clock-rate',
      '60',
    ]);
    const before = Date.now();
    const answer = (await (await fetch(`${proc.base}/api/r/${token}`)).json()) as { clock: { now: string; rate: number }; race: { when: string } };
    const after = Date.now();
    expect(answer.clock.rate).toBe(1);
    expect(Date.parse(answer.clock.now)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(answer.clock.now)).toBeLessThanOrEqual(after);
    expect(answer.race.when).toBe('past');
  });
});
