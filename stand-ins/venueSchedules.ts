/**
 * The networks friends meet at a race, as schedules for the bad network's venue mode (./badNetwork/), and
 * how long their notes are: what the benchmark measures delivery through, what the demo's --venue
 * plays, and what the tests send.
 */
import { seededRandom } from './seededRandom.js';
import type { VenueSchedule } from './badNetwork/index.js';

/** Note lengths drawn from a triangular distribution on 10-60 s with its mode at 20 s (mean 30 s). */
export function noteLengths(n: number, seed: number): number[] {
  const random = seededRandom(seed);
  const [a, c, b] = [10, 20, 60];
  return Array.from({ length: n }, () => {
    const u = random();
    const x = u < (c - a) / (b - a) ? a + Math.sqrt(u * (b - a) * (c - a)) : b - Math.sqrt((1 - u) * (b - a) * (b - c));
    return Math.round(x);
  });
}

/** The crowded venue: the same 75 s pattern of offline windows, repeated for as long as the notes take. */
export function venueSchedule(smoke: boolean, durationMs: number): VenueSchedule {
  const base = { failureShare: 0.3, bitsPerSecond: 50_000, latencyMs: 1_000, seed: 20251012 };
  if (smoke) return { ...base, durationMs: 8_000, offline: [{ fromMs: 2_000, toMs: 4_000 }] };
  const pattern = [
    [8_000, 16_000],
    [30_000, 42_000],
    [58_000, 64_000],
  ] as const;
  const offline: VenueSchedule['offline'] = [];
  for (let cycle = 0; cycle < durationMs; cycle += 75_000) {
    for (const [from, to] of pattern) if (cycle + to <= durationMs) offline.push({ fromMs: cycle + from, toMs: cycle + to });
  }
  return { ...base, durationMs, offline };
}

/** A link that never holds: every connection is cut after a random 3-10 s. */
export function shortLivedSchedule(durationMs: number): VenueSchedule {
  return { durationMs, offline: [], failureShare: 0, bitsPerSecond: 50_000, latencyMs: 600, connectionLifetimeMs: { min: 3_000, max: 10_000 }, seed: 20251102 };
}
