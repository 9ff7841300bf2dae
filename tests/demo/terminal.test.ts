import { describe, expect, it } from 'vitest';
import type { DemoState } from '../../demo/status.js';
import { RaceReport } from '../../demo/terminal.js';
import type { NoteWay } from '../../demo/tracker.js';

const START = Date.parse('2030-10-12T12:30:00Z');
const RATE = 120;
const FINISH_MS = 4 * 3_600_000 + 4 * 60_000 + 44_000;

const note = (played: boolean): NoteWay => ({
  id: 'a1b2',
  marker: 'mi-7',
  markerLabel: 'Mile 7',
  from: 'Sam',
  durationMs: 12_000,
  sent: START,
  stored: START,
  converted: START,
  onPhone: START,
  ...(played && { played: START, heardAt: 'Mile 7', atItsMarker: true }),
});

/** The demo's state `realMs` after the gun (the demo's clock RATE times as fast), the note played once the runner is past Mile 7. */
function stateAt(realMs: number, done = false): DemoState {
  const raceMs = realMs * RATE;
  const finished = raceMs >= FINISH_MS;
  const miles = Math.min(raceMs, FINISH_MS) / 560_000;
  return {
    runner: {
      name: 'Alex',
      distance: `${miles.toFixed(1)} mi`,
      meters: Math.round(miles * 1609.344),
      lastMarker: miles >= 1 ? `Mile ${Math.floor(miles)}` : null,
      at: [0, 0],
      finished: finished ? { at: new Date(START + FINISH_MS).toISOString(), time: '4:04:44' } : null,
    },
    raceClock: new Date(START + raceMs).toISOString(),
    timeZone: 'America/Chicago',
    compression: RATE,
    realSeconds: { elapsed: Math.round(realMs / 1000), total: Math.round(FINISH_MS / RATE / 1000) },
    venue: null,
    // Sent at the start, played only after the finish: a late note that arrives while the demo waits.
    notes: [note(raceMs >= FINISH_MS + 20_000 * RATE)],
    done,
  };
}

/** The whole demo on a terminal or into a pipe, ticking every half second as main.ts does, with a minute's wait after the finish. */
function runDemo(tty: boolean): string {
  let out = '';
  let now = 0;
  const report = new RaceReport({ tty, columns: 200, write: (text) => (out += text) }, () => now);
  const endsAt = FINISH_MS / RATE + 60_000;
  for (; now < endsAt; now += 500) report.update(stateAt(now));
  report.end(stateAt(now, true));
  return out;
}

const times = (text: string, what: string) => text.split(what).length - 1;

describe("the demo's terminal", () => {
  for (const tty of [true, false]) {
    describe(tty ? 'on a terminal' : 'into a pipe', () => {
      it('should say the finish once, when the runner crosses the line, and the end once, with the notes played', () => {
        const out = runDemo(tty);
        expect(times(out, 'Alex finished')).toBe(1);
        expect(out).toContain("Alex finished at 11:34 AM on the demo's clock, in 4:04:44.\n");
        expect(times(out, 'The demo is over')).toBe(1);
        expect(out.endsWith('The demo is over. 1 of 1 notes played: Sam at Mile 7.\n')).toBe(true);
        // The finish comes before anything said after the finish.
        expect(out.indexOf('Alex finished')).toBeLessThan(out.indexOf('After the finish'));
      });
    });
  }

  it('should write into a pipe only what changed besides the clock: after the finish, only the notes moving, each once', () => {
    const lines = runDemo(false).trimEnd().split('\n');
    const afterFinish = lines.filter((l) => l.startsWith('After the finish'));
    expect(afterFinish.map((l) => l.replace(/race clock [^·]*· /, ''))).toEqual([
      'After the finish · notes: 1 sent, 1 stored, 1 converted, 1 on the phone, 0 played',
      'After the finish · notes: 1 sent, 1 stored, 1 converted, 1 on the phone, 1 played',
    ]);
    const news = lines.map((l) => l.replace(/ · race clock [^·]*/, ''));
    for (let i = 1; i < news.length; i++) expect(news[i], `line ${i + 1}`).not.toBe(news[i - 1]);
  });

  it('should keep a change made within a pipe line’s few seconds, and write it when they are over', () => {
    let out = '';
    let now = 0;
    const report = new RaceReport({ tty: false, write: (text) => (out += text) }, () => now);
    const finished = stateAt(FINISH_MS / RATE);
    report.update(finished);
    now += 1_000;
    report.update(stateAt(FINISH_MS / RATE + 20_000));
    expect(times(out, '1 played')).toBe(0);
    now += 5_000;
    report.update(stateAt(FINISH_MS / RATE + 21_000));
    expect(times(out, '1 played')).toBe(1);
  });

  it('should rewrite one status line in place on a terminal, each event on a line of its own', () => {
    const screen = runDemo(true)
      .split('\n')
      .map((line) => line.split('\r\x1b[K').at(-1));
    expect(screen.at(-4)).toMatch(/^Alex finished at /);
    expect(screen.at(-3)).toMatch(/^After the finish · race clock .* · notes: 1 sent, 1 stored, 1 converted, 1 on the phone, 1 played$/);
    expect(screen.at(-2)).toBe('The demo is over. 1 of 1 notes played: Sam at Mile 7.');
  });
});
