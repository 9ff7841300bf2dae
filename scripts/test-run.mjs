// How npm test (./test.mjs) runs its steps so that a run stopped half-way leaves nothing behind. Each
// step runs in a process group of its own, and every step shares a temp folder of the run's own
// (TMPDIR). Stopped by Ctrl-C, SIGTERM or SIGHUP, the run passes the signal to every process its steps
// started, waits until they are gone (killing what is left after STOP_GRACE_MS), removes its temp
// folder and exits 128 + the signal's number. A test killed half-way never runs its own cleanup, so
// the run's folder is what takes its temp folders away; PostgreSQL runs in a session of its own and
// is stopped by its guard (kit/postgres-guard.mjs), a process of the step's group waited for here.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const SIGNAL_NUMBERS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };
/** A stopped step's processes end by themselves within this (a server's graceful stop takes 20 s at most), or are killed. */
const STOP_GRACE_MS = 30_000;

const alive = (group) => {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
};

const signalGroup = (group, signal) => {
  try {
    process.kill(-group, signal);
  } catch {
    // Gone already.
  }
};

/** Until every group is gone or `ms` have passed; the groups still there. */
async function gone(groups, ms) {
  const deadline = Date.now() + ms;
  while ([...groups].some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  return [...groups].filter(alive);
}

/** Unmounts what a test mounted under `dir` (a small tmpfs, deepest first), then removes the folder. */
function removeFolder(dir) {
  let mounts = [];
  try {
    mounts = readFileSync('/proc/self/mounts', 'utf8')
      .split('\n')
      .map((line) => line.split(' ')[1]?.replace(/\\040/g, ' '))
      .filter((point) => point?.startsWith(`${dir}${path.sep}`))
      .sort((a, b) => b.length - a.length);
  } catch {
    // No /proc: nothing was mounted by these tests.
  }
  for (const point of mounts) spawnSync('umount', ['--lazy', point], { stdio: 'ignore' });
  rmSync(dir, { recursive: true, force: true });
}

/** A run of steps: its temp folder (already in the environment the steps are given) and how to start a step. */
export function startRun() {
  // World-writable and sticky like /tmp: PostgreSQL's user makes its cluster in it.
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'milenotes-npm-test-'));
  chmodSync(tmp, 0o1777);
  const groups = new Set();
  let stopping = false;

  /** Every process the steps started is sent `signal` and waited for (killed after STOP_GRACE_MS); then the folder goes. */
  const end = async (signal) => {
    for (const group of groups) signalGroup(group, signal);
    const left = await gone(groups, STOP_GRACE_MS);
    for (const group of left) signalGroup(group, 'SIGKILL');
    await gone(left, 5_000);
    removeFolder(tmp);
  };
  const stop = async (signal) => {
    // Ctrl-C reaches this process twice (from the terminal, and from npm, which passes it on); the
    // guards that stop PostgreSQL must not be killed for it, so a stop already under way goes on as it is.
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\nnpm test: ${signal}: stopping what the running steps started (${STOP_GRACE_MS / 1000} s at most), then removing ${tmp}\n`);
    await end(signal);
    process.exit(128 + SIGNAL_NUMBERS[signal]);
  };
  for (const signal of Object.keys(SIGNAL_NUMBERS)) process.on(signal, () => void stop(signal));

  /** What a step or the end of the run waits on once the run is stopping: nothing more runs, `stop` exits. */
  const never = () => new Promise(() => {});

  return {
    tmp,
    /**
     * Runs a step to its end in a process group of its own, with the run's TMPDIR; resolves with its
     * exit code (1 when it could not start). `stdio` as spawn's, stdin always closed: a step in a group
     * of its own may not read the terminal.
     */
    step(command, args, { env = {}, stdout = 'inherit', stderr = 'inherit', cwd } = {}) {
      if (stopping) return never();
      return new Promise((resolve) => {
        const child = spawn(command, args, { cwd, detached: true, stdio: ['ignore', stdout, stderr], env: { ...process.env, ...env, TMPDIR: tmp } });
        if (child.pid) groups.add(child.pid);
        child.on('error', (error) => {
          console.log(String(error));
          resolve(1);
        });
        // A step ended by the stop: the run goes no further (no next step, no second signal).
        child.on('exit', (code) => !stopping && resolve(code ?? 1));
      });
    },
    /** The end of a run that was not stopped: anything a step left running is stopped, and the temp folder goes. */
    finish: () => (stopping ? never() : end('SIGTERM')),
  };
}
