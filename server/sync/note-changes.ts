/**
 * Owns the held sync requests of this process (GET /api/entries/:id/notes?after=…&wait=…): one
 * database listener (LISTEN on PostgreSQL, so a conversion on any server wakes them; an in-process
 * event on SQLite) fanned out in memory to the requests waiting on that entry, so a held request
 * costs a socket and a timer, never a query until its entry changes. A process holds at most
 * `maxHeld` (past that a new one is refused 503 + Retry-After) and an account at most
 * `maxHeldPerAccount` (a new one ends the account's oldest, which answers with what is there: a
 * phone whose old connection died unnoticed is not locked out). Stopping ends every hold at once.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { NoteStore } from '../db/note-store.js';

/** Why a hold ended: its entry changed (or may have), its time ran out, the server is stopping, a newer hold of the account took its place, or its client went away. */
export type HoldEnd = 'changed' | 'timeout' | 'stopping' | 'replaced' | 'gone';

export interface Hold {
  readonly ended: Promise<HoldEnd>;
  /** Ends the hold (the answer went out or the client left); harmless when already ended. */
  release(end?: HoldEnd): void;
}

export interface SyncLimits {
  maxHeld: number;
  maxHeldPerAccount: number;
}

export class TooManyHeld extends Error {}

/** An app holds one per entry; a few more cover a reconnect before the old connection is noticed gone. */
export const MAX_HELD_PER_ACCOUNT = 4;

/** The share of its wait a held request may end early. */
export const HOLD_SPREAD = 0.2;

/**
 * A held request's time, drawn from the last fifth of the wait asked for. Phones that asked together
 * (every app after a cell comes back, a thousand apps started at once) would otherwise time out
 * together every `wait` seconds and ask again in one burst: on race morning's bench, 1,000 apps held
 * in step stalled the server's event loop for 100-300 ms every 25 s, and an upload landing there
 * waited with them. Ending a little early costs an app one more empty answer in about ten.
 */
export function spreadHold(ms: number, random: () => number = Math.random): number {
  return Math.round(ms - random() * ms * HOLD_SPREAD);
}

export interface NoteChangeHub {
  /**
   * Holds until the runners row `runnerId` changes or `untilMs` (epoch ms) passes. Throws TooManyHeld
   * at the process cap. `changedSince` (performance.now()): when the caller read the row's number;
   * a change signalled since then (or signals perhaps missed) ends the hold at once, 'changed'.
   */
  hold(runnerId: string, accountId: string, untilMs: number, changedSince?: number): Hold;
  /** How many requests are held now. */
  held(): number;
  /** Ends every hold ('stopping'); holds asked for later end at once. */
  stop(): void;
  /** Stops listening to the database. */
  close(): Promise<void>;
}

/**
 * How long the last signal of each runners row is kept: only the moments between a request's read
 * and its hold need it (a round trip to the database); a hold asked for later than this after its
 * read takes its entry as changed.
 */
const SIGNALS_KEPT_MS = 30_000;

/** When each runners row last signalled a change, in two generations so that old ones go without a sweep. */
function recentSignals() {
  let recent = new Map<string, number>();
  let older = new Map<string, number>();
  let rotatedAt = performance.now();
  let gapAt = Number.NEGATIVE_INFINITY;
  return {
    signalled(runnerId: string, at = performance.now()) {
      if (at - rotatedAt > SIGNALS_KEPT_MS) {
        older = recent;
        recent = new Map();
        rotatedAt = at;
      }
      recent.set(runnerId, at);
    },
    gap: () => void (gapAt = performance.now()),
    /** Whether the row may have changed since `since`. */
    since(runnerId: string, since: number): boolean {
      if (performance.now() - since > SIGNALS_KEPT_MS || gapAt >= since) return true;
      return (recent.get(runnerId) ?? older.get(runnerId) ?? Number.NEGATIVE_INFINITY) >= since;
    },
  };
}

interface Entry {
  runnerId: string;
  accountId: string;
  timer: NodeJS.Timeout;
  finish: (end: HoldEnd) => void;
}

export async function startNoteChanges(store: Pick<NoteStore, 'listenForChanges'>, limits: SyncLimits, log: FastifyBaseLogger): Promise<NoteChangeHub> {
  const byRunner = new Map<string, Set<Entry>>();
  /** Oldest first. */
  const byAccount = new Map<string, Entry[]>();
  let count = 0;
  let stopping = false;
  const signals = recentSignals();

  const forget = (e: Entry) => {
    clearTimeout(e.timer);
    const runners = byRunner.get(e.runnerId);
    if (!runners?.delete(e)) return false;
    if (runners.size === 0) byRunner.delete(e.runnerId);
    const mine = byAccount.get(e.accountId)!;
    mine.splice(mine.indexOf(e), 1);
    if (mine.length === 0) byAccount.delete(e.accountId);
    count -= 1;
    return true;
  };
  const endAll = (end: HoldEnd, of?: Iterable<Entry>) => {
    for (const e of [...(of ?? [...byRunner.values()].flatMap((s) => [...s]))]) e.finish(end);
  };

  const stopListening = await store.listenForChanges(
    (runnerId) => {
      signals.signalled(runnerId);
      const waiting = byRunner.get(runnerId);
      if (waiting) endAll('changed', waiting);
    },
    () => {
      signals.gap();
      log.warn({ held: count }, 'the change listener reconnected: every held request asks again');
      endAll('changed');
    },
  );

  const stop = () => {
    stopping = true;
    endAll('stopping');
  };

  return {
    hold(runnerId, accountId, untilMs, changedSince) {
      if (stopping) return { ended: Promise.resolve('stopping'), release: () => {} };
      if (count >= limits.maxHeld) throw new TooManyHeld();
      if (changedSince !== undefined && signals.since(runnerId, changedSince)) return { ended: Promise.resolve('changed'), release: () => {} };
      let resolve!: (end: HoldEnd) => void;
      const ended = new Promise<HoldEnd>((r) => (resolve = r));
      const e: Entry = {
        runnerId,
        accountId,
        timer: setTimeout(() => e.finish('timeout'), Math.max(0, untilMs - Date.now())),
        finish: (end) => {
          if (forget(e)) resolve(end);
        },
      };
      if (!byRunner.has(runnerId)) byRunner.set(runnerId, new Set());
      byRunner.get(runnerId)!.add(e);
      const mine = byAccount.get(accountId) ?? [];
      byAccount.set(accountId, mine);
      mine.push(e);
      count += 1;
      if (mine.length > limits.maxHeldPerAccount) mine[0]!.finish('replaced');
      return { ended, release: (end = 'gone') => e.finish(end) };
    },
    held: () => count,
    stop,
    async close() {
      stop();
      await stopListening();
    },
  };
}
