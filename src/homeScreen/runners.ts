/**
 * Owns what the home screen's list shows: the runners this phone records for, from the
 * links the phone keeps (IndexedDB, so the list works with no signal) joined with the ones the server
 * remembers for its device cookie (all an iPhone's home-screen app has at its first start). A runner
 * stays listed while notes for them still wait on the phone, even once taken off: a waiting note is
 * never hidden. No React, no browser: the hook (useRunners.ts) reads and writes, this decides.
 */
import type { HomeScreenLink } from '../../contract/homeScreenApi.js';
import type { CachedLink, OutboxNote } from '../outbox/notes.js';
import { raceWhen, type RaceWhen } from '../../contract/raceClock.js';
import { pageClock } from '../serverClock.js';

/** A link kept on the phone, with its id (the SHA-256 of its token, as the server names it). */
export interface KeptLink extends CachedLink {
  linkId: string;
}

export interface RunnerRow {
  linkId: string;
  /** The recorder's token; undefined for a revoked link the phone only knows from the server. */
  token?: string;
  runner: string;
  race: { name: string; date: string; startsAt: string };
  /** Upcoming, live or over, now on the server's clock (as the recorder judges it). */
  when: RaceWhen;
  /** The link no longer works (revoked or replaced): its recorder will not open. */
  gone: boolean;
  /** Notes for this runner on this phone the server has not confirmed. */
  waiting: number;
  /** Taken off the list, still shown while its notes wait. */
  leaving: boolean;
  /** The phone keeps this link (and can open its recorder with no signal). */
  kept: boolean;
}

/** Live races first, then those to come (the soonest first), then those over (the latest first); dead links last. */
function rank(row: RunnerRow): [number, number] {
  const start = Date.parse(row.race.startsAt);
  if (row.gone) return [3, -start];
  if (row.when === 'live') return [0, -start];
  if (row.when === 'upcoming') return [1, start];
  return [2, -start];
}

function byRank(a: RunnerRow, b: RunnerRow): number {
  const [ra, sa] = rank(a);
  const [rb, sb] = rank(b);
  return ra - rb || sa - sb || a.runner.localeCompare(b.runner);
}

/** The notes of each link (by token) the server has not confirmed. */
function waitingByToken(notes: readonly Pick<OutboxNote, 'token' | 'state'>[]): Map<string, number> {
  const waiting = new Map<string, number>();
  for (const note of notes) if (note.state !== 'delivered') waiting.set(note.token, (waiting.get(note.token) ?? 0) + 1);
  return waiting;
}

/**
 * The list: every kept link not taken off (or taken off with notes still waiting), and every link
 * the server lists that the phone does not keep and was not taken off here. The server's word that
 * a link is revoked marks a kept one gone. `server` is undefined when the server was not reached.
 * Where a race stands is the server's to say, never the phone's clock (which may be off, and the
 * demo's server runs fast): a kept link carries the server's time and rate from when it was saved
 * (../recorder/serverClock.ts), and a listed one the server's `when` at its answer. `phoneNow`: the phone's clock.
 */
export function runnerRows(
  kept: readonly KeptLink[],
  notes: readonly Pick<OutboxNote, 'token' | 'state'>[],
  server: readonly HomeScreenLink[] | undefined,
  phoneNow: number,
): RunnerRow[] {
  const waiting = waitingByToken(notes);
  const rows = new Map<string, RunnerRow>();
  const takenOff = new Set<string>();
  for (const link of kept) {
    const count = waiting.get(link.token) ?? 0;
    if (link.removedAt !== undefined) takenOff.add(link.linkId);
    if (link.removedAt !== undefined && count === 0) continue;
    const { runner, race } = link.link;
    rows.set(link.linkId, {
      linkId: link.linkId,
      token: link.token,
      runner: runner.displayName,
      race: { name: race.name, date: race.date, startsAt: race.startsAt },
      when: raceWhen(race.startsAt, pageClock(link.link.clock, link.savedAt, () => phoneNow).now()),
      gone: link.goneAt !== undefined,
      waiting: count,
      leaving: link.removedAt !== undefined,
      kept: true,
    });
  }
  for (const link of server ?? []) {
    const row = rows.get(link.linkId);
    if (row) {
      if (link.revoked) row.gone = true;
      continue;
    }
    if (takenOff.has(link.linkId)) continue;
    rows.set(link.linkId, {
      linkId: link.linkId,
      token: link.token,
      runner: link.runner.displayName,
      race: { name: link.race.name, date: link.race.date, startsAt: link.race.startsAt },
      when: link.race.when,
      gone: link.revoked,
      waiting: 0,
      leaving: false,
      kept: false,
    });
  }
  return [...rows.values()].sort(byRank);
}

/** What the phone should do to agree with the server's list: mark revoked links gone, tell the server again what was taken off, keep links it lacks. */
export function reconcile(kept: readonly KeptLink[], server: readonly HomeScreenLink[]) {
  const keptById = new Map(kept.map((link) => [link.linkId, link]));
  return {
    /** Kept links the server says are revoked. */
    gone: server.flatMap((s) => {
      const link = keptById.get(s.linkId);
      return s.revoked && link && link.goneAt === undefined ? [link.token] : [];
    }),
    /** Links taken off here that the server still lists (the first request did not get through). */
    forget: server.filter((s) => keptById.get(s.linkId)?.removedAt !== undefined).map((s) => s.linkId),
    /** Live links the phone does not keep yet: fetched once, so their recorders open with no signal later. */
    fetch: server.filter((s) => !s.revoked && s.token !== undefined && !keptById.has(s.linkId)).map((s) => s.token!),
  };
}

/** With one runner on the list whose recorder works, the start opens that recorder at once. */
export function onlyRecorder(rows: readonly RunnerRow[]): string | undefined {
  const [row, ...others] = rows;
  return row && others.length === 0 && !row.gone && !row.leaving && row.token !== undefined ? row.token : undefined;
}
