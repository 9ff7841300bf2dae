import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../../contract/runnerApi.js';
import { MAX_POSITIONS_PER_BATCH } from '../../../contract/progressApi.js';
import { BACKENDS } from '../support/backends.js';
import { positionAt, startRace } from '../support/live-race.js';
import { UPCOMING } from '../support/races.js';
import { startRunnerApp, type RunnerTestApp } from './support.js';

const PACE = 3; // m/s
const MINUTE = 60_000;

/** Every key anywhere in a JSON value. */
const keysOf = (value: unknown): string[] => (value && typeof value === 'object' ? Object.entries(value).flatMap(([k, v]) => [k, ...keysOf(v)]) : []);

describe.each(BACKENDS)('progress shared by the runner on %s', (kind) => {
  let t: RunnerTestApp;
  let start: number;
  beforeAll(async () => {
    t = await startRunnerApp(kind);
    start = await startRace(t.app.repo);
  });
  afterAll(() => t.close());

  /** A signed-in runner with an entry in the live race, sharing unless told not to. */
  async function sharingRunner(share = true): Promise<{ session: Session; id: string; token: string }> {
    const session = await t.signIn();
    const entry = await t.enter(session);
    if (share)
      expect((await t.call(session, 'PATCH', `/api/entries/${entry.id}`, { shareProgress: true })).json()).toEqual({ id: entry.id, shareProgress: true });
    return { session, ...entry };
  }
  const post = (session: Session, id: string, positions: object[]) => t.call(session, 'POST', `/api/entries/${id}/positions`, { positions });
  const link = async (token: string) => (await t.app.inject({ url: `/api/r/${token}` })).json();
  /** On the course at our pace, `seconds` after the start. */
  const running = (seconds: number, accuracy = 8) => positionAt(seconds * PACE, start + seconds * 1000, accuracy);

  it('should place positions on the course, ignoring a jump, a fix behind and a bad accuracy, and time the marker passed', async () => {
    const { session, id, token } = await sharingRunner();
    const res = await post(session, id, [
      running(300),
      running(600),
      positionAt(600 * PACE + 3000, start + 630_000), // 3 km in 30 s
      positionAt(600 * PACE - 300, start + 660_000), // 300 m back
      running(690, 120), // a cell-tower guess
      running(720),
    ]);
    expect(res.statusCode, res.body).toBe(200);
    const receipt = res.json();
    expect(receipt.accepted).toBe(3);
    expect(receipt.ignored).toEqual([
      { index: 2, reason: 'too_fast' },
      { index: 3, reason: 'behind' },
      { index: 4, reason: 'inaccurate' },
    ]);
    expect(receipt.progress.distanceMeters).toBeGreaterThan(720 * PACE - 10);
    expect(receipt.progress.distanceMeters).toBeLessThan(720 * PACE + 10);
    expect(receipt.progress.at).toBe(new Date(start + 720_000).toISOString());
    // Mile 1 (1,609 m) between the fixes at 900 m and 1,800 m: at 536 s.
    expect(receipt.progress.lastMarker).toMatchObject({ id: 'mi-1', label: 'Mile 1' });
    expect(Math.abs(Date.parse(receipt.progress.lastMarker.passedAt) - (start + 536_000))).toBeLessThan(3000);
    expect((await link(token)).progress).toEqual(receipt.progress);

    // The same batch again (the phone lost the answer) changes nothing.
    const again = (await post(session, id, [running(600), running(720)])).json();
    expect(again).toMatchObject({
      accepted: 0,
      ignored: [
        { index: 0, reason: 'stale' },
        { index: 1, reason: 'stale' },
      ],
      progress: receipt.progress,
    });
  });

  it('should never answer a coordinate: not to the link holder, not to the runner', async () => {
    const { session, id, token } = await sharingRunner();
    const sent = running(1200);
    const receipt = await post(session, id, [sent]);
    const shown = await link(token);
    expect(shown.progress.lastMarker.id).toBe('mi-2');
    for (const body of [receipt.body, JSON.stringify(shown)]) {
      expect(keysOf(JSON.parse(body)).filter((k) => /^(lat|lon|lng|latitude|longitude|coordinates|accuracy)$/i.test(k))).toEqual([]);
      expect(body).not.toContain(String(sent.lat).slice(0, 7));
      expect(body).not.toContain(String(sent.lon).slice(0, 8));
    }
  });

  it('should keep progress to the runner until they share it, and hide it again when they stop', async () => {
    const { session, id, token } = await sharingRunner(false);
    const refused = await post(session, id, [running(300)]);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({ error: 'progress_not_shared', message: expect.stringMatching(/Turn it on/) });
    expect((await link(token)).progress).toBeUndefined();

    await t.call(session, 'PATCH', `/api/entries/${id}`, { shareProgress: true });
    expect((await post(session, id, [running(300)])).json().accepted).toBe(1);
    expect((await link(token)).progress.distanceMeters).toBeGreaterThan(0);

    expect((await t.call(session, 'PATCH', `/api/entries/${id}`, { shareProgress: false })).json().shareProgress).toBe(false);
    expect((await link(token)).progress).toBeUndefined();
  });

  it('should ignore positions from before the start, after the race, or ahead of the clock', async () => {
    const { session, id } = await sharingRunner();
    const res = await post(session, id, [
      positionAt(0, start - 5 * MINUTE), // warming up in the corral
      running(300),
      positionAt(0, Date.now() + 10 * MINUTE), // the phone's clock is wrong
    ]);
    expect(res.json()).toMatchObject({
      accepted: 1,
      ignored: [
        { index: 0, reason: 'outside_race' },
        { index: 2, reason: 'future' },
      ],
    });
  });

  it('should refuse positions while the race is not live, and show no progress then', async () => {
    const { session, id, token } = await sharingRunner();
    expect((await post(session, id, [running(300)])).json().accepted).toBe(1);
    // The same runner's race, moved: over (9 hours ago), then not yet started (in an hour).
    await startRace(t.app.repo, UPCOMING.chicago.id, 9 * 60);
    try {
      const past = await post(session, id, [running(400)]);
      expect(past.statusCode).toBe(409);
      expect(past.json()).toEqual({ error: 'race_not_live', message: expect.stringMatching(/is over/) });
      expect((await link(token)).progress).toBeUndefined();
      await startRace(t.app.repo, UPCOMING.chicago.id, -60);
      expect((await post(session, id, [running(400)])).json().error).toBe('race_not_live');
    } finally {
      start = await startRace(t.app.repo);
    }
  });

  it('should refuse positions in a race whose course we lack', async () => {
    await startRace(t.app.repo, UPCOMING.nyc.id, 30, false);
    const session = await t.signIn();
    const entry = await t.enter(session, UPCOMING.nyc.id);
    await t.call(session, 'PATCH', `/api/entries/${entry.id}`, { shareProgress: true });
    const res = await post(session, entry.id, [running(300)]);
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('no_course');
  });

  it('should refuse another runner’s entry as if it did not exist, and change nothing', async () => {
    const owner = await sharingRunner(false);
    const other = await t.signIn();
    const patch = await t.call(other, 'PATCH', `/api/entries/${owner.id}`, { shareProgress: true });
    expect(patch.statusCode).toBe(404);
    expect(patch.json().error).toBe('entry_not_found');
    const positions = await post(other, owner.id, [running(300)]);
    expect(positions.statusCode).toBe(404);
    expect(await t.app.repo.progress.ofEntry(owner.id)).toEqual({ sharing: false, lastPassage: null });
    expect((await t.call(undefined, 'PATCH', `/api/entries/${owner.id}`, { shareProgress: true })).statusCode).toBe(401);
  });

  it('should refuse a batch too long or with a number out of range, whole, storing nothing', async () => {
    const { session, id } = await sharingRunner();
    const tooMany = Array.from({ length: MAX_POSITIONS_PER_BATCH + 1 }, (_, i) => running(i + 1));
    const bad = [
      tooMany,
      [],
      [{ ...running(300), lat: 91 }],
      [{ ...running(300), lon: -181 }],
      [{ ...running(300), accuracy: 'good' }],
      [{ ...running(300), at: 'yesterday' }],
      [{ at: running(300).at, lat: 41.9, lon: -87.6 }],
    ];
    for (const positions of bad) {
      const res = await post(session, id, positions);
      expect(res.statusCode, JSON.stringify(positions).slice(0, 80)).toBe(400);
      expect(res.json().message).toEqual(expect.any(String));
    }
    expect((await t.app.repo.progress.ofEntry(id)).placed).toBeUndefined();
    expect((await t.call(session, 'PATCH', `/api/entries/${id}`, { shareProgress: 'maybe' })).statusCode).toBe(400);
  });

  it('should delete the progress with the account', async () => {
    const { session, id } = await sharingRunner();
    expect((await post(session, id, [running(1200)])).json().accepted).toBe(1);
    expect((await t.call(session, 'DELETE', '/api/me')).statusCode).toBe(204);
    expect(await t.app.repo.progress.ofEntry(id)).toEqual({ sharing: false, lastPassage: null });
  });

  it('should describe both routes in the OpenAPI document, by their operationIds, behind a session', async () => {
    const doc = (await t.app.inject({ url: '/api/openapi.json' })).json();
    expect(doc.paths['/api/entries/{id}'].patch).toMatchObject({ operationId: 'updateEntry', security: [{ bearer: [] }] });
    const positions = doc.paths['/api/entries/{id}/positions'].post;
    expect(positions).toMatchObject({ operationId: 'postPositions', security: [{ bearer: [] }] });
    expect(positions.requestBody.content['application/json'].schema.properties.positions.maxItems).toBe(MAX_POSITIONS_PER_BATCH);
    expect(Object.keys(positions.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '404', '409']));
  });

  it('should answer two batches sent at once without an error, ending at the later one', async () => {
    const { session, id } = await sharingRunner();
    const answers = await Promise.all([post(session, id, [running(300), running(600)]), post(session, id, [running(900), running(1200)])]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200]);
    const progress = await t.app.repo.progress.ofEntry(id);
    // The later batch always lands; the earlier one too when it went first, else its fixes are stale.
    expect(progress.placed!.at).toBe(start + 1200_000);
    expect(progress.lastPassage!.markerId).toBe('mi-2');
  });

  it('should move a runner only from the placement it read: a writer that read an older one changes nothing', async () => {
    const { id } = await sharingRunner();
    const { progress } = t.app.repo;
    const first = { distanceMeters: 900, at: start + 300_000 };
    expect(await progress.advance(id, undefined, first, [])).toBe(true);
    // Another request placed the runner first: a second first placement, and a move from an older one, both lose.
    expect(await progress.advance(id, undefined, { distanceMeters: 300, at: start + 100_000 }, [])).toBe(false);
    expect(
      await progress.advance(id, { distanceMeters: 0, at: start }, { distanceMeters: 1700, at: start + 570_000 }, [
        { markerId: 'mi-1', passedAt: start + 536_000 },
      ]),
    ).toBe(false);
    expect(await progress.ofEntry(id)).toEqual({ sharing: true, placed: first, lastPassage: null });
    expect(await progress.advance(id, first, { distanceMeters: 1700, at: start + 570_000 }, [{ markerId: 'mi-1', passedAt: start + 536_000 }])).toBe(true);
    expect((await progress.ofEntry(id)).lastPassage).toEqual({ markerId: 'mi-1', passedAt: start + 536_000 });
  });
});
