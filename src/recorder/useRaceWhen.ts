import { useEffect, useState } from 'react';
import { LIVE_HOURS, raceWhen, type RaceWhen } from '../../contract/raceClock.js';
import { phoneMs, type PageClock } from '../serverClock.js';

const LIVE_MS = LIVE_HOURS * 3600_000;
/** setTimeout waits at most 2^31-1 ms (24.8 days): a race further off is looked at again then. */
const MAX_WAIT_MS = 2 ** 31 - 1;

/**
 * Where the race stands now, from its start and the server's clock as the page keeps it (a link kept
 * offline for days still tells the truth), moving on by itself at the start and at the end, and at
 * once when the start itself moves (an answer from the server says the operator moved it).
 */
export function useRaceWhen(startsAt: string, clock: PageClock): RaceWhen {
  const [now, setNow] = useState(clock.now);
  const when = raceWhen(startsAt, Math.max(now, clock.now()));
  useEffect(() => {
    setNow(clock.now());
  }, [clock]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a wait capped at MAX_WAIT_MS ends by setting now, which must start the next wait.
  useEffect(() => {
    if (when === 'past') return undefined;
    const next = Date.parse(startsAt) + (when === 'live' ? LIVE_MS : 0);
    const timer = setTimeout(() => setNow(clock.now()), Math.min(phoneMs(clock.rate, next - clock.now()), MAX_WAIT_MS));
    return () => clearTimeout(timer);
  }, [startsAt, when, now, clock]);
  return when;
}
