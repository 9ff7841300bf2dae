import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PHONE_LEAD_MS } from '../../../contract/delivery.js';
import { raceStartsAt } from '../../../contract/raceClock.js';
import { loadConfig } from '../../../server/config/index.js';
import { openRepository } from '../../../server/db/index.js';
import type { Repository } from '../../../server/db/repository.js';
import { linkIdOf } from '../../../server/links.js';
import { createMetrics } from '../../../server/plugins/metrics.js';
import { queueNote } from '../../../server/races/note-deadlines.js';
import { startRunnerApp, type RunnerTestApp } from '../runner/support.js';
import { BACKENDS } from '../support/backends.js';
import { positionAt, startRace } from '../support/live-race.js';
import { UPCOMING } from '../support/races.js';
import { makeLink } from '../support/uploads.js';

const PACE = 3; // m/s
const MINUTE = 60_000;

describe.each(BACKENDS)('the conversion queue by deadline on %s', (kind) => {
  let t: RunnerTestApp;
  let repo: Repository;
  let start: number;
  beforeAll(async () => {
    t = await startRunnerApp(kind);
    repo = t.app.repo;
    start = await startRace(repo, UPCOMING.chicago.id, 60);
  });
  afterAll(() => t.close());

  /** A note as the intake stores it (the note, its job and its deadline in one transaction), received at `at`. */
  async function note(token: string, marker: string, at: number): Promise<string> {
    const id = randomUUID();
    await queueNote(
      repo,
      {
        id,
        linkId: linkIdOf(token),
        marker,
        from: 'Sam',
        contentType: 'audio/webm',
        bytes: 1,
        sha256: '0'.repeat(64),
        originalKey: `originals/${id}`,
        receivedAt: new Date(at).toISOString(),
      },
      (queued) => repo.notes.insert(queued),
    );
    return id;
  }

  /** A runner in the live race who shares progress, seen every minute at 3 m/s from the gun until `until` s after it. */
  async function liveRunner(
    until: number,
    pace = (s: number) => s * PACE,
  ): Promise<{ id: string; token: string; session: Awaited<ReturnType<RunnerTestApp['signIn']>> }> {
    const session = await t.signIn();
    const entry = await t.enter(session);
    await t.call(session, 'PATCH', `/api/entries/${entry.id}`, { shareProgress: true });
    await run(session, entry.id, 60, until, pace);
    return { ...entry, session };
  }

  async function run(session: Awaited<ReturnType<RunnerTestApp['signIn']>>, id: string, from: number, until: number, pace: (s: number) => number) {
    const positions = [];
    for (let s = from; s <= until; s += 60) positions.push(positionAt(pace(s), start + s * 1000));
    const res = await t.call(session, 'POST', `/api/entries/${id}/positions`, { positions });
    expect(res.statusCode, res.body).toBe(200);
  }

  /** Claims until the queue is empty at `now`, each for a millisecond, so the next pass finds them all again. */
  async function drain(queue: Repository, now: number, raceNow = now): Promise<string[]> {
    const order: string[] = [];
    for (let job = await queue.jobs.claim(now, 1, raceNow); job; job = await queue.jobs.claim(now, 1, raceNow)) order.push(job.noteId);
    return order;
  }

  it('should claim the note due first ahead of an older backlog, races not live behind live ones, past races last', async () => {
    const now = Date.now();
    const runner = await liveRunner(3540); // at 10.6 km, mile 6 passed
    const upcoming = await makeLink(repo, UPCOMING.berlin.id);
    const past = await makeLink(repo, 'chicago-2025');
    // The backlog, older than any live note: a race to come (latest marker first), a past race, a live note due in two hours.
    const later = [];
    for (const [i, marker] of ['mi-26', 'mi-20', 'mi-10', 'mi-2'].entries()) later.push(await note(upcoming, marker, now - 60 * MINUTE + i * 1000));
    const over = [await note(past, 'mi-5', now - 59 * MINUTE), await note(past, 'mi-1', now - 59 * MINUTE + 1000)];
    const mile20 = await note(runner.token, 'mi-20', now - 58 * MINUTE);
    // Just now: Mile 8 (the runner is 12 minutes away) and Mile 3 (passed: the app plays it at once).
    const mile8 = await note(runner.token, 'mi-8', now - 2000);
    const mile3 = await note(runner.token, 'mi-3', now - 1000);

    expect(await repo.jobs.deadline(mile3)).toBe(now - 1000);
    const due8 = (await repo.jobs.deadline(mile8))!;
    expect(due8).toBeGreaterThan(now + 5 * MINUTE);
    expect(due8).toBeLessThan(now + 15 * MINUTE);

    const byDeadline = await drain(repo, now);
    // Past races' notes last, by deadline too (Mile 1's before Mile 5's).
    expect(byDeadline).toEqual([mile3, mile8, mile20, ...[...later].reverse(), ...[...over].reverse()]);

    // CONVERT_ORDER=arrival, another server on the same database: first come, first served, as before.
    const arrival = await openRepository({ ...t.backend.config, convertOrder: 'arrival' });
    try {
      expect(await drain(arrival, now + 10)).toEqual([...later, ...over, mile20, mile8, mile3]);
    } finally {
      await arrival.close();
    }
    for (const id of byDeadline) await repo.jobs.markFailed(id, 'test: done with it');
  });

  it('should put a note more than a few minutes late behind every note that can still be on time', async () => {
    const now = Date.now();
    const runner = await liveRunner(3540);
    const late = await note(runner.token, 'mi-2', now - 20 * MINUTE); // passed, sent 20 minutes ago and still waiting
    const onTime = await note(runner.token, 'mi-12', now - 1000);
    const upcoming = await note(await makeLink(repo, UPCOMING.nyc.id), 'mi-1', now - 1000);
    // What an operator alerts on: the live note 20 minutes past its deadline, the queue split live/later.
    const scrape = await createMetrics(
      async () => 3,
      () => 0,
      () => repo.jobs.deadlineStats(now),
    ).registry.metrics();
    expect(scrape).toContain('milenotes_conversion_overdue_seconds 1200\n');
    expect(scrape).toContain('milenotes_conversion_queue_waiting{race="live"} 2\n');
    expect(scrape).toContain('milenotes_conversion_queue_waiting{race="later"} 1\n');
    expect(await drain(repo, now)).toEqual([onTime, late, upcoming]);
    await repo.jobs.markFailed(upcoming, 'test: done with it');
    expect(await repo.jobs.deadlineStats(now)).toEqual({ live: 2, later: 0, overdueSeconds: 1200 });
    for (const id of [late, onTime]) await repo.jobs.markFailed(id, 'test: done with it');
    expect(await repo.jobs.deadlineStats(now)).toEqual({ live: 0, later: 0, overdueSeconds: 0 });
  });

  it('should judge which races are live on the server’s clock, and leases on the real one', async () => {
    const now = Date.now();
    const runner = await liveRunner(600);
    const chicago = await note(runner.token, 'mi-20', now - 2000);
    const berlin = await note(await makeLink(repo, UPCOMING.berlin.id), 'mi-20', now - 1000);
    expect(await drain(repo, now)).toEqual([chicago, berlin]);
    // A server on a clock that reads Berlin's race morning (as the demo's reads its own race): Berlin's
    // race is the live one, Chicago's is over.
    const berlinMorning = Date.parse(raceStartsAt(UPCOMING.berlin.date, UPCOMING.berlin.start, UPCOMING.berlin.timezone)) + 30 * MINUTE;
    expect(await drain(repo, now + 10, berlinMorning)).toEqual([berlin, chicago]);
    // Leased for a minute of real time: however far on the race clock is, the job stays taken until then.
    expect((await repo.jobs.claim(now + 20, MINUTE, berlinMorning))?.noteId).toBe(berlin);
    expect(await drain(repo, now + 30, berlinMorning + 10 * 3600_000)).toEqual([chicago]);
    expect(await drain(repo, now + 21 + MINUTE, berlinMorning)).toEqual([berlin, chicago]);
    for (const id of [chicago, berlin]) await repo.jobs.markFailed(id, 'test: done with it');
  });

  it('should move a waiting note’s deadline when the runner passes a marker, to the time the link’s holder is shown', async () => {
    const runner = await liveRunner(1800); // at 5.4 km after 30 minutes
    const mile8 = await note(runner.token, 'mi-8', Date.now());
    const before = (await repo.jobs.deadline(mile8))!;
    // Then the runner slows to 2 m/s: passing Mile 4 and Mile 5 moves the estimate, and the deadline with it.
    await run(runner.session, runner.id, 1860, 3540, (s) => 1800 * PACE + (s - 1800) * 2);
    const after = (await repo.jobs.deadline(mile8))!;
    expect(after - before).toBeGreaterThan(5 * MINUTE);
    const shown = (await t.app.inject({ url: `/api/r/${runner.token}` })).json().estimates.markers.find((m: { id: string }) => m.id === 'mi-8');
    expect(after).toBe(Date.parse(shown.at) - PHONE_LEAD_MS);
    await repo.jobs.markFailed(mile8, 'test: done with it');
  });

  it('should move a waiting note’s deadline when the runner gives an expected finish, before any position', async () => {
    const session = await t.signIn();
    const entry = await t.enter(session);
    const mile20 = await note(entry.token, 'mi-20', Date.now());
    const mile20Meters = 32_187;
    // No position, no finish time: a typical marathon, 4 h 30, from the gun.
    expect(await repo.jobs.deadline(mile20)).toBe(Math.round(start + (mile20Meters / 42_195) * 4.5 * 3600_000 - PHONE_LEAD_MS));
    const res = await t.call(session, 'PATCH', `/api/entries/${entry.id}`, { expectedFinishSeconds: 3 * 3600 });
    expect(res.json()).toEqual({ id: entry.id, shareProgress: false, expectedFinishSeconds: 3 * 3600 });
    expect(await repo.jobs.deadline(mile20)).toBe(Math.round(start + (mile20Meters / 42_195) * 3 * 3600_000 - PHONE_LEAD_MS));
    expect((await t.call(session, 'PATCH', `/api/entries/${entry.id}`, { expectedFinishSeconds: 30 * 60 })).statusCode).toBe(400);
    expect((await t.call(session, 'PATCH', `/api/entries/${entry.id}`, {})).statusCode).toBe(400);
    await repo.jobs.markFailed(mile20, 'test: done with it');
  });
});

describe('CONVERT_ORDER', () => {
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    env = { DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'milenotes-order-')) };
  });
  afterAll(() => rm(env.DATA_DIR!, { recursive: true, force: true }));

  it('should convert by deadline unless told arrival, and refuse anything else', () => {
    expect(loadConfig(env).convertOrder).toBe('deadline');
    expect(loadConfig({ ...env, CONVERT_ORDER: 'Arrival' }).convertOrder).toBe('arrival');
    expect(() => loadConfig({ ...env, CONVERT_ORDER: 'fifo' })).toThrow(/CONVERT_ORDER must be deadline or arrival/);
  });
});
