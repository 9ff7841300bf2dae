/**
 * Owns how background work goes round: each slot runs a round, then looks again at once when the
 * round says there may be more or a nudge came meanwhile, otherwise sleeps a poll (a nudge wakes it
 * early) or rests after a fault (only a stop cuts a rest short). The loop beats at each round (and
 * whenever its work says it is alive, a lease renewed), so /readyz can tell a stalled loop. A stop
 * wakes the sleepers and waits for the rounds in flight.
 */
import type { FastifyBaseLogger } from 'fastify';

/** What a round found: `idle` (nothing more now: sleep a poll), `again` (look at once), or a rest before the next. */
export type Round = 'idle' | 'again' | { restMs: number };

export interface LoopOptions {
  /** For the log. */
  name: string;
  /** How long an idle slot sleeps before it looks again. */
  pollMs: number;
  /** One round of the work. A throw is logged and the slot sleeps a poll. */
  round: () => Promise<Round>;
  /** Rounds run side by side (each slot its own). */
  slots?: number;
  /** Sleep a poll before the first round, rather than run it at start. */
  waitFirst?: boolean;
  log: FastifyBaseLogger;
}

export interface LoopBeat {
  /** False before the start and once every slot has ended (stopped or crashed). */
  running: boolean;
  /** When a slot last went round, or the work last said it is alive. */
  lastBeatAt: number;
}

export interface Loop {
  start(): void;
  /** Look for work now rather than at the next poll. */
  nudge(): void;
  /** The work is alive (a long round renewed its lease). */
  beat(): void;
  /** Stops sleeping and starting rounds; resolves once the rounds in flight have ended. */
  stop(): Promise<void>;
  heartbeat(): LoopBeat;
}

export function createLoop(opts: LoopOptions): Loop {
  let started = false;
  let stopped = false;
  let running = false;
  let lastBeatAt = Date.now();
  let slots: Promise<void> = Promise.resolve();
  // Bumped by each nudge; a slot that saw it change during its round looks again before sleeping.
  let nudges = 0;
  const sleepers = new Set<{ wake(): void; byNudge: boolean }>();

  const wait = (ms: number, byNudge: boolean) =>
    new Promise<void>((resolve) => {
      if (stopped) return resolve();
      const sleeper = {
        byNudge,
        wake() {
          clearTimeout(timer);
          sleepers.delete(sleeper);
          resolve();
        },
      };
      const timer = setTimeout(sleeper.wake, ms);
      sleepers.add(sleeper);
    });

  /** A rest after a fault, beating as it goes (the slot is alive, only waiting); nudges do not end it. */
  async function rest(ms: number): Promise<void> {
    const until = Date.now() + ms;
    while (!stopped && Date.now() < until) {
      await wait(Math.min(opts.pollMs, until - Date.now()), false);
      lastBeatAt = Date.now();
    }
  }

  async function slot(): Promise<void> {
    if (opts.waitFirst) await wait(opts.pollMs, true);
    while (!stopped) {
      lastBeatAt = Date.now();
      const seen = nudges;
      let round: Round;
      try {
        round = await opts.round();
      } catch (err) {
        opts.log.error({ err, loop: opts.name }, 'a background round failed; it tries again at the next poll');
        round = 'idle';
      }
      lastBeatAt = Date.now();
      if (round === 'again' || stopped) continue;
      if (round !== 'idle') await rest(round.restMs);
      else if (nudges === seen) await wait(opts.pollMs, true);
    }
  }

  return {
    start() {
      if (started) return;
      started = true;
      running = true;
      lastBeatAt = Date.now();
      slots = Promise.all(Array.from({ length: Math.max(1, opts.slots ?? 1) }, slot)).then(
        () => undefined,
        (err: unknown) => opts.log.error({ err, loop: opts.name }, 'a background loop crashed'),
      );
      void slots.finally(() => {
        running = false;
      });
    },
    nudge() {
      nudges++;
      for (const sleeper of [...sleepers]) if (sleeper.byNudge) sleeper.wake();
    },
    beat() {
      lastBeatAt = Date.now();
    },
    async stop() {
      stopped = true;
      for (const sleeper of [...sleepers]) sleeper.wake();
      await slots;
    },
    heartbeat: () => ({ running, lastBeatAt }),
  };
}
