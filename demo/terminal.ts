/**
 * What the demo writes to its terminal while the race runs: one status line, and each event (the
 * finish, the end of the demo) on a line of its own, once. On a terminal the status line is
 * rewritten in place; into a pipe or a file a new one is written only when something in it besides
 * the clock has changed, at most every few seconds, so a log reads as the race's steps and never
 * says the same thing again.
 */
import { finishLine, statusLine, summaryLine, type DemoState } from './status.js';

export interface Terminal {
  /** A terminal that can rewrite its last line; otherwise a pipe or a file, written line by line. */
  tty: boolean;
  columns?: number;
  write(text: string): void;
}

/** A pipe's log gets at most one status line this often: the runner moves at every tick. */
const PIPE_EVERY_MS = 5_000;

/** The status line without its clock: the clock moves at every tick, and a moving clock is no news. */
const newsOf = (line: string) => line.replace(/ · race clock [^·]*/, '');

export class RaceReport {
  private finishTold = false;
  private printed = '';
  private printedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly term: Terminal,
    private readonly now: () => number = Date.now,
  ) {}

  /** The race as it stands (every half second): the finish once, when the runner has crossed the line, and the status line. */
  update(state: DemoState): void {
    this.tellFinish(state);
    this.status(statusLine(state), false);
  }

  /** The demo is over: its last status, unless a pipe has it already, and which notes played. */
  end(state: DemoState): void {
    this.tellFinish(state);
    this.status(statusLine(state), true);
    if (this.term.tty) this.term.write('\n');
    this.term.write(`${summaryLine(state.notes)}\n`);
  }

  private tellFinish(state: DemoState): void {
    if (this.finishTold || !state.runner.finished) return;
    this.finishTold = true;
    this.line(finishLine(state, state.runner.finished));
  }

  /** An event's own line; on a terminal it takes the status line's place, which the next update writes again below it. */
  private line(text: string): void {
    this.term.write(this.term.tty ? `\r\x1b[K${text}\n` : `${text}\n`);
  }

  private status(line: string, last: boolean): void {
    if (this.term.tty) {
      this.term.write(`\r\x1b[K${line.slice(0, (this.term.columns || 120) - 1)}`);
      return;
    }
    const news = newsOf(line);
    if (news === this.printed || (!last && this.now() - this.printedAt < PIPE_EVERY_MS)) return;
    this.term.write(`${line}\n`);
    this.printed = news;
    this.printedAt = this.now();
  }
}
