import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRunnerApp, type RunnerTestApp } from '../runner/support.js';
import { BACKENDS } from '../support/backends.js';
import { positionAt, startRace } from '../support/live-race.js';
import { UPCOMING } from '../support/races.js';

const PACE = 3; // m/s

/** Every key anywhere in a JSON value. */
const keysOf = (value: unknown): string[] => (value && typeof value === 'object' ? Object.entries(value).flatMap(([k, v]) => [k, ...keysOf(v)]) : []);

describe.each(BACKENDS)('when the link’s holder is told the runner will pass, on %s', (kind) => {
  let t: RunnerTestApp;
  let start: number;
  beforeAll(async () => {
    t = await startRunnerApp(kind);
    start = await startRace(t.app.repo, UPCOMING.chicago.id, 60);
  });
  afterAll(() => t.close());

  const link = async (token: string) => (await t.app.inject({ url: `/api/r/${token}` })).json();

  async function runner(raceId: string, share: boolean, runUntil?: number) {
    const session = await t.signIn();
    const entry = await t.enter(session, raceId);
    if (share) await t.call(session, 'PATCH', `/api/entries/${entry.id}`, { shareProgress: true, expectedFinishSeconds: 4 * 3600 });
    if (runUntil) {
      const positions = [];
      for (let s = 60; s <= runUntil; s += 60) positions.push(positionAt(s * PACE, start + s * 1000));
      expect((await t.call(session, 'POST', `/api/entries/${entry.id}/positions`, { positions })).statusCode).toBe(200);
    }
    return entry;
  }

  it('should give each marker not yet passed with its expected time, while the race is live and progress shared, and no coordinate', async () => {
    const { token } = await runner(UPCOMING.chicago.id, true, 3540); // 10.6 km: mile 6 passed
    const before = Date.now();
    const body = await link(token);
    expect(body.progress.lastMarker.id).toBe('mi-6');
    expect(Date.parse(body.estimates.madeAt)).toBeGreaterThanOrEqual(before - 1000);
    const ids = body.estimates.markers.map((m: { id: string }) => m.id);
    expect(ids).toEqual([...Array.from({ length: 20 }, (_, i) => `mi-${i + 7}`), 'finish']);
    const times = body.estimates.markers.map((m: { at: string }) => Date.parse(m.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // Mile 7 (11,265 m) is 645 m on at 3 m/s from the fix at 3,540 s: about 215 s later.
    expect(Math.abs(times[0] - (start + (3540 + 215) * 1000))).toBeLessThan(10_000);
    expect(keysOf(body).filter((k) => /^(lat|lon|latitude|longitude|coordinates|accuracy)$/i.test(k))).toEqual([]);
  });

  it('should give no estimate before a position, when the runner does not share, or when the race is not live', async () => {
    // The coarse estimate from the expected finish schedules conversions only: it is never shown.
    expect((await link((await runner(UPCOMING.chicago.id, true)).token)).estimates).toBeUndefined();
    const hidden = await runner(UPCOMING.chicago.id, false);
    expect(await link(hidden.token)).not.toHaveProperty('estimates');
    const upcoming = await link((await runner(UPCOMING.berlin.id, true)).token);
    expect(upcoming.race.when).toBe('upcoming');
    expect(upcoming).not.toHaveProperty('estimates');
  });
});
