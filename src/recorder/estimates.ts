/**
 * What the recorder makes of the server's estimates: when the runner is expected at each
 * marker, which marker a note sent now can still reach in time, whether the chosen one is too near,
 * and how old the times are. Pure functions of the answer and the server's clock as the page keeps it
 * (./serverClock.ts), so the advice can be tested without a page and keeps working offline on the last estimate.
 */
import type { Estimates } from '../../contract/api.js';
import { SEND_LEAD_MS } from '../../contract/delivery.js';

/** Epoch ms the runner is expected at each marker ahead, by marker id; empty without estimates. */
export function expectedTimes(estimates: Estimates | undefined): ReadonlyMap<string, number> {
  const times = new Map<string, number>();
  for (const { id, at } of estimates?.markers ?? []) {
    const ms = Date.parse(at);
    if (!Number.isNaN(ms)) times.set(id, ms);
  }
  return times;
}

/** Whether a note sent at `now` is unlikely to reach the phone before the runner reaches a marker expected at `at`. */
export const tooNear = (at: number, now: number): boolean => at < now + SEND_LEAD_MS;

/**
 * The first marker, in course order, the runner is expected at no sooner than SEND_LEAD_MS from
 * now: the nearest one a note sent now can reach in time. Undefined without estimates, or when every
 * marker left is too near.
 */
export function suggestedMarker(markers: ReadonlyArray<{ id: string }>, times: ReadonlyMap<string, number>, now: number): string | undefined {
  return markers.find((m) => {
    const at = times.get(m.id);
    return at !== undefined && !tooNear(at, now);
  })?.id;
}

/** How long ago the estimate was made, in whole minutes, never below 0. */
export function minutesOld(estimates: Estimates, now: number): number {
  const made = Date.parse(estimates.madeAt);
  return Number.isNaN(made) ? 0 : Math.max(0, Math.floor((now - made) / 60_000));
}

/** From this age on, the recorder says how old the times are: a page kept fresh is at most a refresh (a minute) behind. */
export const STALE_AFTER_MINUTES = 2;
