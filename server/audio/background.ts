/**
 * Owns how conversion's processes are put behind requests: a niceness of 10 (which the disk's
 * priority follows), set by coreutils' nice before the command starts, so that every thread the
 * process makes has it (a niceness set on a running process covers only its main thread on Linux).
 * On a busy server (race morning: uploads, sign-ins, held syncs) a request then gets the CPU first;
 * with nothing else to do, conversion still has the whole machine. Children inherit the niceness,
 * so a process already in the background starts its tools as they are.
 *
 * Not Linux's idle class (SCHED_IDLE): it runs only when nothing else wants the CPU, so a machine
 * kept busy by anything else starves conversion until its time limit fails the note's attempts (seen
 * in the test suite: a takeover's conversion took 17 s instead of 1). A nice-10 process always keeps
 * about a tenth of a core against each busy one. Race morning's upload p95 was the same either way
 * once conversion left the server's own process (./converter.ts): 29-34 ms loaded against 25-32 ms.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';

export const BACKGROUND_NICENESS = 10;

let prefix: string[] | undefined;
/** nice where it can be run (found once per process), else nothing. */
function backgroundPrefix(): string[] {
  prefix ??= spawnSync('nice', ['-n', String(BACKGROUND_NICENESS), 'true']).status === 0 ? ['nice', '-n', String(BACKGROUND_NICENESS)] : [];
  return prefix;
}

/** Whether this process already runs in the background (started through backgroundCommand). */
function alreadyInBackground(): boolean {
  try {
    return os.getPriority() >= BACKGROUND_NICENESS;
  } catch {
    return false;
  }
}

export interface BackgroundCommand {
  program: string;
  args: string[];
  /** Without nice, the niceness is set once the process has started: call lowerPriority with its pid. */
  lowerAfterStart: boolean;
}

/** The command line that runs `command` in the background. */
export function backgroundCommand(command: string, args: string[]): BackgroundCommand {
  if (alreadyInBackground()) return { program: command, args, lowerAfterStart: false };
  const before = backgroundPrefix();
  if (before.length === 0) return { program: command, args, lowerAfterStart: true };
  return { program: before[0]!, args: [...before.slice(1), command, ...args], lowerAfterStart: false };
}

/** The fallback without nice: a niceness for a process just started (its main thread, at least). */
export function lowerPriority(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    os.setPriority(pid, BACKGROUND_NICENESS);
  } catch {
    // Already exited, or a system that refuses: it runs at normal priority, which is only slower for others.
  }
}
