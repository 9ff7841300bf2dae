/**
 * What Linux's /proc says about the processes a bench measures and the machine they share: CPU
 * seconds (utime + stime) of a process and of a process tree, resident memory, open sockets, and
 * how busy the machine's cores were. Figures read from the kernel, never from the process itself,
 * so a process whose event loop is saturated is measured as truly as an idle one.
 */
import { readdir, readFile, readlink } from 'node:fs/promises';
import os from 'node:os';

/** USER_HZ on Linux: the unit of /proc/<pid>/stat's times. */
const TICKS_PER_SECOND = 100;

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces): [0] is the state. */
async function statFields(pid: number): Promise<string[] | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat ? stat.slice(stat.lastIndexOf(')') + 2).split(' ') : undefined;
}

/** utime + stime of one process (all its threads), in seconds; 0 once it is gone. */
export async function cpuSeconds(pid: number | undefined): Promise<number> {
  if (pid === undefined) return 0;
  const f = await statFields(pid);
  return f ? (Number(f[11]) + Number(f[12])) / TICKS_PER_SECOND : 0;
}

/** utime + stime of a process and of the children it has waited for (cutime + cstime: its finished ffmpeg runs), in seconds; 0 once it is gone. */
export async function cpuSecondsWithReaped(pid: number | undefined): Promise<number> {
  const f = pid === undefined ? undefined : await statFields(pid);
  return f ? [11, 12, 13, 14].reduce((sum, i) => sum + Number(f[i]), 0) / TICKS_PER_SECOND : 0;
}

/** utime and stime of one process apart, in seconds: its own code, and the kernel's work for it (sockets, memory). */
export async function cpuSplit(pid: number | undefined): Promise<{ user: number; system: number }> {
  const f = pid === undefined ? undefined : await statFields(pid);
  return f ? { user: Number(f[11]) / TICKS_PER_SECOND, system: Number(f[12]) / TICKS_PER_SECOND } : { user: 0, system: 0 };
}

/**
 * Seconds the process's main thread (a Node process's event loop) has waited on a run queue,
 * ready to run while another task had its core (/proc/<pid>/schedstat): what a shared machine
 * added to its answers' time.
 */
export async function runQueueWait(pid: number | undefined): Promise<number> {
  if (pid === undefined) return 0;
  const fields = (await readFile(`/proc/${pid}/schedstat`, 'utf8').catch(() => '')).trim().split(/\s+/);
  return fields.length >= 2 ? Number(fields[1]) / 1e9 : 0;
}

/** The processes whose parent is `pid`. */
export async function childrenOf(pid: number): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const f = await statFields(Number(entry));
    if (f && Number(f[1]) === pid) found.push(Number(entry));
  }
  return found;
}

/** The child of `parent` whose command line holds `marker` (a server's converter process, say), if one runs. */
export async function childRunning(parent: number, marker: string): Promise<number | undefined> {
  for (const pid of await childrenOf(parent)) {
    if ((await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).includes(marker)) return pid;
  }
  return undefined;
}

/**
 * CPU seconds of a process and its children, per process id: a reading to subtract from a later
 * one. A child that came and went between two readings is missed; PostgreSQL's backends live as
 * long as their pooled connections, so for a cluster that is its autovacuum workers' odd run.
 */
export async function treeCpu(root: number | undefined): Promise<Map<number, number>> {
  const cpu = new Map<number, number>();
  if (root === undefined) return cpu;
  for (const pid of [root, ...(await childrenOf(root))]) cpu.set(pid, await cpuSeconds(pid));
  return cpu;
}

/** CPU seconds a tree spent between two readings (processes present in both, or born since). */
export function treeCpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, seconds] of after) sum += seconds - (before.get(pid) ?? 0);
  return sum;
}

/** A process's resident memory (VmRSS), in MB; NaN once it is gone. */
export async function rssMB(pid: number | undefined): Promise<number> {
  if (pid === undefined) return NaN;
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  return kb === undefined ? NaN : Number(kb) / 1024;
}

/** How many sockets a process holds open (its TCP connections, listeners and pipes to children). */
export async function socketsOf(pid: number | undefined): Promise<number> {
  if (pid === undefined) return 0;
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => []);
  let n = 0;
  for (const fd of fds) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    if (target.startsWith('socket:')) n++;
  }
  return n;
}

/** The machine's cores' time so far, in seconds: busy (user, nice, system, irq, softirq, steal) and all. */
export async function machineCpu(): Promise<{ busy: number; total: number }> {
  const line = (await readFile('/proc/stat', 'utf8')).split('\n')[0]!;
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number) as number[];
  const busy = user! + nice! + system! + irq! + softirq! + steal!;
  return { busy: busy / TICKS_PER_SECOND, total: (busy + idle! + iowait!) / TICKS_PER_SECOND };
}

/** The load average over the last minute (/proc/loadavg), and the machine's core count. */
export const loadNow = () => ({ load1: os.loadavg()[0]!, cores: os.cpus().length });
