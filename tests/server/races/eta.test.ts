import { describe, expect, it } from 'vitest';
import { markersFor, MARATHON_METERS } from '../../../contract/markers.js';
import { PHONE_LEAD_MS } from '../../../contract/delivery.js';
import { noteDeadline } from '../../../server/races/deadline.js';
import { expectedArrivals, TYPICAL_FINISH_SECONDS, type EtaInput } from '../../../server/races/eta.js';

const START = Date.parse('2026-10-11T12:30:00Z');
const MILES = markersFor(['mi']);
const MINUTE = 60_000;

/** A runner as a function of time: metres along the course `ms` after the gun. */
type Body = (ms: number) => number;

/** What the server holds of `body` at `now`: the last fix (every 15 s, from the runner's own start) and each marker passed. */
function heldAt(body: Body, now: number, fixEveryMs = 15_000): EtaInput {
  let lastFix = 0;
  for (let ms = 0; ms <= now - START; ms += fixEveryMs) if (body(ms) > 0) lastFix = ms;
  const here = body(lastFix);
  const passages = MILES.filter((m) => m.distanceMeters <= here).map((m) => ({ markerId: m.id, passedAt: START + arrivalOf(body, m.distanceMeters) }));
  return { startsAt: START, expectedFinishSeconds: null, ...(here > 0 && { placed: { distanceMeters: here, at: START + lastFix } }), passages };
}

/** When (ms after the gun) `body` first reaches `meters`, to the second. */
function arrivalOf(body: Body, meters: number): number {
  let lo = 0;
  let hi = 12 * 3600_000;
  while (hi - lo > 1000) {
    const mid = (lo + hi) / 2;
    if (body(mid) >= meters) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** Crosses the start `late` ms after the gun, then runs at `secondsPerKm`, which `drift` (a function of metres run) slows. */
function runner(late: number, secondsPerKm: number, drift: (meters: number) => number = () => 1): Body {
  // Integrate pace over distance once, in 10 m steps: the time at each distance.
  const times = [0];
  for (let d = 10; d <= MARATHON_METERS + 10; d += 10) times.push(times.at(-1)! + (secondsPerKm / 100) * drift(d) * 1000);
  return (ms) => {
    const t = ms - late;
    if (t <= 0) return 0;
    let lo = 0;
    let hi = times.length - 1;
    if (t >= times[hi]!) return MARATHON_METERS;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (times[mid]! <= t) lo = mid;
      else hi = mid;
    }
    return lo * 10 + (10 * (t - times[lo]!)) / (times[lo + 1]! - times[lo]!);
  };
}

/**
 * A drifting runner, as real ones run: starts 20 minutes after the gun at 5:30 a km, slows evenly by
 * 10 % over the race, hits the wall at 30 km (20 % slower over the next 5 km, staying there), and
 * stops 30 s at every water station (each 5 km).
 */
const DRIFTING: Body = runner(20 * MINUTE, 330, (d) => {
  const wall = d < 30_000 ? 0 : Math.min(1, (d - 30_000) / 5_000) * 0.2;
  const water = d % 5000 < 10 ? 1 + 30 / 3.3 : 1; // 30 s more on the 10 m (3.3 s) at each station
  return (1 + (0.1 * d) / MARATHON_METERS + wall) * water;
});

/** Minutes off at each horizon (a marker reached 5, 15, 30 min after the estimate, ±2.5 min), estimating every minute of the race. */
function errors(body: Body, estimate: typeof expectedArrivals = expectedArrivals): Record<5 | 15 | 30, { mean: number; p95: number; n: number }> {
  const horizons = [5, 15, 30] as const;
  const off: Record<number, number[]> = { 5: [], 15: [], 30: [] };
  const truth = new Map(MILES.map((m) => [m.id, START + arrivalOf(body, m.distanceMeters)]));
  for (let now = START + 25 * MINUTE; now < truth.get('finish')!; now += MINUTE) {
    for (const { id, at } of estimate(heldAt(body, now), MILES)) {
      const ahead = (truth.get(id)! - now) / MINUTE;
      const horizon = horizons.find((h) => Math.abs(ahead - h) <= 2.5);
      if (horizon) off[horizon]!.push(Math.abs(at - truth.get(id)!) / MINUTE);
    }
  }
  const stat = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return { mean: xs.reduce((a, b) => a + b, 0) / xs.length, p95: sorted[Math.floor(0.95 * (sorted.length - 1))]!, n: xs.length };
  };
  return { 5: stat(off[5]!), 15: stat(off[15]!), 30: stat(off[30]!) };
}

/** The naive estimate to beat: the average pace since the gun, held to the finish. */
const sinceTheGun: typeof expectedArrivals = (input, markers) => {
  const { placed } = input;
  if (!placed) return [];
  const pace = (placed.at - input.startsAt) / placed.distanceMeters;
  return markers
    .filter((m) => m.distanceMeters > placed.distanceMeters)
    .map((m) => ({ id: m.id, at: placed.at + pace * (m.distanceMeters - placed.distanceMeters) }));
};

const round = (x: number) => Math.round(x * 100) / 100;

describe('when a runner reaches each marker', () => {
  it('should estimate a steady runner to within seconds, counting from the fix, not from now', () => {
    const steady = runner(0, 360); // 6:00 a km from the gun
    const now = START + 60 * MINUTE;
    const held = heldAt(steady, now);
    const arrivals = expectedArrivals(held, MILES);
    // Mile 6 was passed (9,656 m in 57.9 min): the estimates start at mile 7, in course order.
    expect(arrivals[0]!.id).toBe('mi-7');
    expect(arrivals.map((a) => a.at)).toEqual([...arrivals.map((a) => a.at)].sort((a, b) => a - b));
    for (const { id, at } of arrivals.slice(0, 3)) {
      const truth = START + arrivalOf(steady, MILES.find((m) => m.id === id)!.distanceMeters);
      expect(Math.abs(at - truth), id).toBeLessThan(15_000);
    }
    // The same fixes read later say the same: the estimate is counted from the fix's own time.
    expect(expectedArrivals(held, MILES)).toEqual(arrivals);
  });

  it('should follow a runner who slows down, better than the pace since the start would', () => {
    const report = errors(DRIFTING);
    console.info(
      'estimate error on the drifting runner, minutes off (mean / p95 / markers):',
      Object.entries(report)
        .map(([h, s]) => `${h} min ahead ${round(s.mean)} / ${round(s.p95)} / ${s.n}`)
        .join('; '),
    );
    expect(report[5].p95).toBeLessThan(1);
    expect(report[15].p95).toBeLessThan(2.5);
    expect(report[30].p95).toBeLessThan(4.5);

    // The pace since the gun alone (the runner's wave start and first fast kilometres in it) is far worse.
    const baseline = errors(DRIFTING, sinceTheGun);
    console.info(
      'the pace since the gun alone:',
      Object.entries(baseline)
        .map(([h, s]) => `${h} min ahead ${round(s.mean)} / ${round(s.p95)}`)
        .join('; '),
    );
    for (const h of [5, 15, 30] as const) expect(report[h].mean, `${h} min ahead`).toBeLessThan(baseline[h].mean / 2);
  });

  it('should place a runner with no position by the gun and their expected finish, else a typical marathon', () => {
    const none: EtaInput = { startsAt: START, expectedFinishSeconds: null, passages: [] };
    const finish = (input: EtaInput) => expectedArrivals(input, MILES).find((m) => m.id === 'finish')!.at;
    expect(finish(none)).toBe(START + TYPICAL_FINISH_SECONDS * 1000);
    expect(finish({ ...none, expectedFinishSeconds: 3 * 3600 })).toBe(START + 3 * 3600_000);
    expect(expectedArrivals(none, MILES)).toHaveLength(MILES.length);
  });
});

describe('a conversion deadline', () => {
  const held = heldAt(runner(0, 360), START + 60 * MINUTE);

  it('should be the expected time at the marker less the time to reach the phone', () => {
    const mile20 = expectedArrivals(held, MILES).find((m) => m.id === 'mi-20')!.at;
    expect(noteDeadline(held, 'mi-20', START + 59 * MINUTE)).toBe(mile20 - PHONE_LEAD_MS);
    // A kilometre marker of a race in miles is still a place on the course.
    expect(noteDeadline(held, 'km-15', START)).toBeGreaterThan(START + 60 * MINUTE);
  });

  it('should be at once for a marker already passed: when the note came, or when the runner passed it if later', () => {
    const mile3 = held.passages.find((p) => p.markerId === 'mi-3')!.passedAt;
    expect(noteDeadline(held, 'mi-3', START + 59 * MINUTE)).toBe(START + 59 * MINUTE);
    expect(noteDeadline(held, 'mi-3', START)).toBe(mile3);
  });
});
