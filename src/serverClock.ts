/**
 * The server's clock on the page. Every time the recorder shows or judges by is the
 * server's: where the race stands, when the runner passed a marker, how old the estimates are, which
 * marker a note sent now can reach, when a note was recorded. Each link answer says the server's
 * time and rate (server/clock.ts); the page keeps a clock in step with it from the phone's clock at
 * that moment, so a phone whose clock is off still shows the right times, and the demo's compressed
 * clock runs as fast here as on the server. Pure, so it is tested without a page.
 */
import type { ServerClock } from '../contract/api.js';

export interface PageClock {
  /** The server's clock now, epoch ms. */
  now(): number;
  /** How many of the server's milliseconds pass in one of the phone's: 1, except in the demo. */
  readonly rate: number;
  /** What the server's clock read (or will read) when the phone's read `phoneMs`. */
  at(phoneMs: number): number;
}

/**
 * The server's clock, from what an answer said of it (`told`) and the phone's clock when the answer
 * came (`heardAt`). Without a usable `told` (a copy of the link kept by an older version): the phone's own.
 */
export function pageClock(told: ServerClock | undefined, heardAt: number, phoneNow: () => number = Date.now): PageClock {
  const server = told ? Date.parse(told.now) : NaN;
  if (Number.isNaN(server) || !Number.isFinite(heardAt)) return { now: phoneNow, rate: 1, at: (ms) => ms };
  const rate = Number.isFinite(told!.rate) && told!.rate >= 1 ? told!.rate : 1;
  const at = (phoneMs: number) => server + (phoneMs - heardAt) * rate;
  return { now: () => at(phoneNow()), rate, at };
}

/** Phone milliseconds in which `serverMs` of the server's clock pass at `rate`, but at least `floorMs`. */
export const phoneMs = (rate: number, serverMs: number, floorMs = 0): number => Math.max(floorMs, serverMs / rate);
