import { describe, expect, it } from 'vitest';
import { onlyRecorder, reconcile, runnerRows, type KeptLink } from '../../../src/homeScreen/runners.js';
import type { HomeScreenLink } from '../../../contract/homeScreenApi.js';
import type { NoteState } from '../../../src/outbox/notes.js';

const NOW = Date.parse('2026-10-11T14:00:00Z');
const RACES = {
  live: { id: 'live', name: 'Chicago Marathon', date: '2026-10-11', startsAt: '2026-10-11T12:30:00Z' },
  soon: { id: 'soon', name: 'NYC Marathon', date: '2026-11-01', startsAt: '2026-11-01T14:10:00Z' },
  later: { id: 'later', name: 'Berlin Marathon', date: '2027-09-26', startsAt: '2027-09-26T07:15:00Z' },
  over: { id: 'over', name: 'Sydney Marathon', date: '2026-08-30', startsAt: '2026-08-29T21:00:00Z' },
};

function kept(token: string, runner: string, race: keyof typeof RACES, extra: Partial<KeptLink> = {}): KeptLink {
  const r = RACES[race];
  return {
    token,
    linkId: `id-${token}`,
    savedAt: 0,
    ...extra,
    link: { runner: { displayName: runner }, race: { ...r, units: ['mi'], timezone: 'UTC', when: 'upcoming' }, markers: [] },
  };
}

function listed(token: string, runner: string, race: keyof typeof RACES, revoked = false): HomeScreenLink {
  const r = RACES[race];
  return {
    linkId: `id-${token}`,
    runner: { displayName: runner },
    revoked,
    openedAt: '2026-10-01T00:00:00Z',
    race: { ...r, timezone: 'UTC', when: 'upcoming' },
    ...(revoked ? {} : { token, path: `/r/${token}` }),
  };
}

const note = (token: string, state: NoteState) => ({ token, state });
const names = (rows: { runner: string }[]) => rows.map((r) => r.runner);

describe("the installed app's list", () => {
  it('should put live races first, then those to come soonest first, then those over, then dead links', () => {
    const rows = runnerRows(
      [kept('a', 'Over', 'over'), kept('b', 'Later', 'later'), kept('c', 'Dead', 'live', { goneAt: 1 }), kept('d', 'Live', 'live'), kept('e', 'Soon', 'soon')],
      [],
      undefined,
      NOW,
    );
    expect(names(rows)).toEqual(['Live', 'Soon', 'Later', 'Over', 'Dead']);
    expect(rows.map((r) => r.when)).toEqual(['live', 'upcoming', 'upcoming', 'past', 'live']);
  });

  it("should say where a race stands on the server's clock, not on a phone whose clock is two hours fast", () => {
    // Saved a minute ago, when the server said 12:00 (the phone read 13:59): the Chicago start, 12:30, is still to come.
    const told = { now: '2026-10-11T12:00:00Z', rate: 1 };
    const alex = kept('a', 'Alex', 'live', { savedAt: NOW - 60_000 });
    const rows = runnerRows([{ ...alex, link: { ...alex.link, clock: told } }], [], undefined, NOW);
    expect(rows.map((r) => r.when)).toEqual(['upcoming']);
    // A runner only the server lists: its word at the answer, whatever the phone's clock says.
    const ben = listed('b', 'Ben', 'soon');
    expect(runnerRows([], [], [{ ...ben, race: { ...ben.race, when: 'live' } }], NOW).map((r) => r.when)).toEqual(['live']);
  });

  it("should count each runner's notes not delivered, whatever their state", () => {
    const rows = runnerRows(
      [kept('a', 'Alex', 'soon')],
      [note('a', 'waiting'), note('a', 'failed'), note('a', 'delivered'), note('b', 'waiting')],
      undefined,
      NOW,
    );
    expect(rows[0]!.waiting).toBe(2);
  });

  it("should join the server's list: runners the phone lacks are added, a revoked link marks the kept one gone", () => {
    const rows = runnerRows([kept('a', 'Alex', 'soon')], [], [listed('a', 'Alex', 'soon', true), listed('b', 'Ben', 'later')], NOW);
    expect(rows.map((r) => [r.runner, r.gone, r.kept, r.token])).toEqual([
      ['Ben', false, false, 'b'],
      ['Alex', true, true, 'a'],
    ]);
  });

  it('should hide a runner taken off the list, unless notes for them still wait, and never bring them back from the server', () => {
    const off = kept('a', 'Alex', 'soon', { removedAt: 5 });
    expect(runnerRows([off], [], [listed('a', 'Alex', 'soon')], NOW)).toEqual([]);
    const waiting = runnerRows([off], [note('a', 'waiting')], [listed('a', 'Alex', 'soon')], NOW);
    expect(waiting.map((r) => [r.runner, r.leaving, r.waiting])).toEqual([['Alex', true, 1]]);
  });

  it('should say what the phone must do to agree with the server', () => {
    const todo = reconcile(
      [kept('a', 'Alex', 'soon'), kept('b', 'Ben', 'soon', { removedAt: 1 }), kept('c', 'Cy', 'soon', { goneAt: 1 })],
      [
        listed('a', 'Alex', 'soon', true),
        listed('b', 'Ben', 'soon'),
        listed('c', 'Cy', 'soon', true),
        listed('d', 'Dee', 'soon'),
        listed('e', 'Eve', 'soon', true),
      ],
    );
    expect(todo).toEqual({ gone: ['a'], forget: ['id-b'], fetch: ['d'] });
  });

  it('should open the recorder at once only for a lone runner whose link works', () => {
    expect(onlyRecorder(runnerRows([kept('a', 'Alex', 'soon')], [], undefined, NOW))).toBe('a');
    expect(onlyRecorder(runnerRows([kept('a', 'Alex', 'soon', { goneAt: 1 })], [], undefined, NOW))).toBeUndefined();
    expect(onlyRecorder(runnerRows([kept('a', 'Alex', 'soon'), kept('b', 'Ben', 'soon')], [], undefined, NOW))).toBeUndefined();
    expect(onlyRecorder([])).toBeUndefined();
  });
});
