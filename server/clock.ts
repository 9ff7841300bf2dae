/**
 * The server's clock: the time races are measured against. Everything that asks where a race
 * stands or when a runner is where reads it: a race's state (upcoming, live, past), the time of
 * positions and when the runner is expected at each marker, the conversion deadlines and the
 * queue's order by them, and when a note arrived (an input to its deadline). The recorder is told
 * its time and rate with the link's answer and keeps its own clock in step.
 *
 * What measures how long real work takes stays on the real clock (Date.now), whatever this one
 * says: sign-in tokens and signed audio URLs, rate-limit and quota windows, conversion leases and
 * heartbeats, resumable uploads' expiry, held syncs, orphan ages, readiness, and record-keeping
 * stamps that nothing compares with a race (a link made or revoked, a share, a backup).
 *
 * `npm start` (server/index.ts) always runs on the real clock: no setting reads another. Only the
 * demo builds the app with a compressed clock (demo/serve.ts), so a whole marathon runs in minutes
 * with every time it shows true to what then happens.
 */

export interface Clock {
  /** Now, epoch milliseconds. */
  now(): number;
  /** How many of this clock's milliseconds pass in a real one: 1 for the real clock. */
  readonly rate: number;
}

export const realClock: Clock = { now: () => Date.now(), rate: 1 };

/** The most a clock may be compressed: a marathon in under a minute. */
export const MAX_RATE = 1000;

export interface CompressedClockOptions {
  /** How many times as fast as the real clock it runs (1 to MAX_RATE). */
  rate: number;
  /** The real epoch ms at which it reads `startsAt`; from then on it runs `rate` times as fast. */
  origin: number;
  /** What it reads at `origin` (default: the real time then). */
  startsAt?: number;
  /** The real clock it runs from (tests give their own). */
  realNow?: () => number;
}

/** A clock that runs `rate` times as fast as the real one from `origin`. Two made with the same options read the same. */
export function compressedClock({ rate, origin, startsAt = origin, realNow = Date.now }: CompressedClockOptions): Clock {
  if (!Number.isFinite(rate) || rate < 1 || rate > MAX_RATE) throw new Error(`a clock's rate must be from 1 to ${MAX_RATE}, got ${rate}`);
  if (!Number.isFinite(origin) || !Number.isFinite(startsAt)) throw new Error('a clock needs a finite origin and start');
  return { rate, now: () => startsAt + (realNow() - origin) * rate };
}
