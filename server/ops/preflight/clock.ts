/**
 * The preflight's clock line: this machine's clock against PostgreSQL's (its own host) and against
 * Apple's keys server (the Date of its answer), the clocks it is judged by: leases between servers,
 * Apple's sign-in tokens (30 s of leeway), race times. SQLite has no clock to compare: it runs inside
 * this process, on this machine's time, so with SQLite only Apple's answer can show a clock that is off.
 */
import { fail, ok, warn, type PreflightCheck } from './finding.js';

/** Off by more than this is a failure: well inside every margin above, and far beyond what NTP keeps (milliseconds). */
export const CLOCK_LIMIT_MS = 5_000;

interface Comparison {
  against: string;
  /** Their clock minus ours. */
  offsetMs: number;
  /** How far the measurement itself may be off (half the round trip; a Date header's whole second). */
  uncertaintyMs: number;
}

function span(ms: number): string {
  const s = Math.abs(ms) / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const whole = Math.round(s);
  return `${Math.floor(whole / 60)} min ${whole % 60} s`;
}

const FIX = "keep this machine's clock synced: `timedatectl set-ntp true` (or chrony), after which `timedatectl` says 'System clock synchronized: yes'.";

export const clockCheck: PreflightCheck = {
  name: 'clock',
  async run({ config, repository, appleKeys }) {
    const compared: Comparison[] = [];
    const unknown: string[] = [];
    if (config.databaseUrl) {
      try {
        const repo = await repository();
        const sentAt = Date.now();
        const theirs = (await repo.ops.databaseNow()).getTime();
        const receivedAt = Date.now();
        compared.push({ against: "PostgreSQL's", offsetMs: theirs - (sentAt + receivedAt) / 2, uncertaintyMs: (receivedAt - sentAt) / 2 });
      } catch {
        unknown.push('PostgreSQL did not answer');
      }
    }
    try {
      const answer = await appleKeys();
      const date = answer.date ? Date.parse(answer.date) : NaN;
      if (Number.isNaN(date)) unknown.push("Apple's keys server sent no Date");
      // A Date header is whole seconds, rounded down: the middle of its second, give or take half of one.
      else
        compared.push({
          against: "Apple's keys server's",
          offsetMs: date + 500 - (answer.sentAt + answer.receivedAt) / 2,
          uncertaintyMs: 500 + (answer.receivedAt - answer.sentAt) / 2,
        });
    } catch {
      unknown.push("Apple's keys server did not answer");
    }
    const sqlite = config.databaseUrl ? '' : " (SQLite runs in this process, on this machine's clock: nothing to compare there)";
    const off = compared.filter((c) => Math.abs(c.offsetMs) - c.uncertaintyMs > CLOCK_LIMIT_MS);
    if (off.length > 0) {
      const words = off.map((c) => `${span(c.offsetMs)} ${c.offsetMs > 0 ? 'behind' : 'ahead of'} ${c.against}`).join(' and ');
      return fail(`this machine's clock is ${words} (${span(CLOCK_LIMIT_MS)} allowed).`, config.databaseUrl ? `${FIX} The database host's too.` : FIX);
    }
    if (compared.length === 0) return warn(`not compared: ${unknown.join('; ')}${sqlite}.`, FIX);
    const within = compared.map((c) => `${span(c.offsetMs)} of ${c.against}`).join(' and ');
    return ok(`within ${within}${sqlite}.`);
  },
};
