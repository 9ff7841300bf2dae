/**
 * Owns when push rows end, swept by every server now and then (deleting twice is no error):
 * - a race's marker alerts, waiting or fired, once the race is over (LIVE_HOURS after its start):
 *   none can fire any more;
 * - a subscription idle for SUBSCRIPTION_IDLE_DAYS: it took no push and its phone did not save it
 *   again (a tap, a language change) in that time, counted from its race's end at the earliest, so
 *   one made weeks before the race waits for it. A race weekend, and the weeks after it in which
 *   runners go back to the notes they did not hear on the course (the keepsake), fit in a month, and
 *   a heard push taken then keeps it: it is alive and wanted. Past that it is most likely dead: Safari
 *   and Chrome drop a subscription when the app is removed, site data is cleared or permission taken
 *   back, and tell nobody; we would learn it only from a 404 or 410 to a push we send, and with no
 *   push to send we never would. Its alerts and waiting pushes go with it.
 */
import type { FastifyBaseLogger } from 'fastify';
import { LIVE_HOURS } from '../../contract/raceClock.js';
import { createLoop, type Loop } from '../background/loop.js';
import type { Repository } from '../db/repository.js';

export const SUBSCRIPTION_IDLE_DAYS = 30;
const DAY_MS = 86_400_000;
const LIVE_MS = LIVE_HOURS * 3600_000;
const IDLE_MS = SUBSCRIPTION_IDLE_DAYS * DAY_MS;

/**
 * One sweep. `raceNow` is the race clock races end by (../clock.ts); `now` the real clock pushes
 * and saves are stamped with. Resolves to how many alerts and subscriptions went.
 */
export function sweepPush(repo: Repository, now: number, raceNow = now): Promise<{ alerts: number; subscriptions: number }> {
  const iso = (ms: number) => new Date(ms).toISOString();
  return repo.push.sweep({
    raceStartedBefore: iso(raceNow - LIVE_MS),
    idleRaceStartedBefore: iso(raceNow - LIVE_MS - IDLE_MS),
    idleSince: now - IDLE_MS,
  });
}

/** Sweeps at start, then every `intervalMs`, on the background loop; a failed sweep is logged and tried at the next. */
export function createPushSweeper(opts: { repo: Repository; log: FastifyBaseLogger; intervalMs: number; now?: () => number; raceNow?: () => number }): Loop {
  const now = opts.now ?? Date.now;
  return createLoop({
    name: 'push sweep',
    pollMs: opts.intervalMs,
    log: opts.log,
    async round() {
      try {
        const gone = await sweepPush(opts.repo, now(), (opts.raceNow ?? now)());
        if (gone.alerts + gone.subscriptions > 0) opts.log.info(gone, 'push rows past their life removed');
      } catch (err) {
        opts.log.warn({ err }, 'the push sweep failed; it tries again at the next');
      }
      return 'idle';
    },
  });
}
