/**
 * Owns how conversion's processes are put behind requests: Linux's idle scheduling class
 * (SCHED_IDLE, through util-linux's chrt, which execs the next command under the same pid) and a
 * niceness of 10 (which the disk's priority follows), so that on a busy server (race morning:
 * uploads, sign-ins, held syncs) a request is answered before a note is converted. A niceness alone
 * did not do it: the kernel's scheduler (EEVDF) lets a running nice-10 ffmpeg finish its slice
 * before a woken request runs, a few ms at each of an upload's dozen turns, while a SCHED_IDLE task
 * gives way at once. With nothing else to do, conversion still has the whole machine.
 * Children inherit both, so a process already in the background starts its tools as they are.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';

export const BACKGROUND_NICENESS = 10;

let prefix: string[] | undefined;
/** chrt then nice where chrt can set the class (found once per process), else nothing. */
function backgroundPrefix(): string[] {
  prefix ??= spawnSync('chrt', ['--idle', '0', 'true']).status === 0 ? ['chrt', '--idle', '0', 'nice', '-n', String(BACKGROUND_NICENESS)] : [];
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
  /** Without chrt, the niceness is set once the process has started: call lowerPriority with its pid. */
  lowerAfterStart: boolean;
}

/** The command line that runs `command` in the background. */
export function backgroundCommand(command: string, args: string[]): BackgroundCommand {
  if (alreadyInBackground()) return { program: command, args, lowerAfterStart: false };
  const before = backgroundPrefix();
  if (before.length === 0) return { program: command, args, lowerAfterStart: true };
  return { program: before[0]!, args: [...before.slice(1), command, ...args], lowerAfterStart: false };
}

/** The fallback without chrt: a niceness for a process just started. */
export function lowerPriority(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    os.setPriority(pid, BACKGROUND_NICENESS);
  } catch {
    // Already exited, or a system that refuses: it runs at normal priority, which is only slower for others.
  }
}
