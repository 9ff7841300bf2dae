/**
 * The real server as a child process (node --import tsx server/index.ts, as npm start runs it):
 * started on a loopback port, waited for until /healthz answers, stopped by a signal. The one place
 * the tests, the bench and the demo start it; a start that fails leaves no process behind.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './freePort.js';

/** The repository's folder: the server runs from here, as npm start runs it. */
export const root = path.resolve(import.meta.dirname, '..');

export interface ServerProcess {
  child: ChildProcess;
  base: string;
  /** What the process wrote to stderr (and stdout, when kept), for failure messages. */
  output(): string;
}

export interface SpawnOptions {
  /** The whole environment of the process (PORT and HOST are set from `port`). */
  env: NodeJS.ProcessEnv;
  port: number;
  /** The module node runs: server/index.ts unless a program wraps it (the demo's clock: demo/serve.ts). */
  entry?: string;
  /** What follows `npm start --` on the command line. */
  args?: string[];
  withinMs?: number;
  /**
   * Up once /healthz says ok, and only from this child (a port taken between the probe and the
   * bind answers for someone else). Otherwise up once it answers HTTP at all: a server whose store
   * is down is up, and says 503.
   */
  healthy?: boolean;
  /** Keep stdout beside stderr in output(). */
  stdout?: boolean;
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Sends the signal and waits until the process is gone. */
export function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  return new Promise((resolve) => {
    if (exited(child)) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

async function answers(url: string, healthy: boolean, signal: AbortSignal): Promise<boolean> {
  try {
    const res = await fetch(`${url}/healthz`, { signal });
    return !healthy || (res.ok && ((await res.json()) as { status?: string }).status === 'ok');
  } catch {
    return false;
  }
}

/** The listening sockets on 127.0.0.1:`port` (socket:[inode]), from Linux's /proc; undefined where there is none. */
async function listenersOn(port: number): Promise<Set<string> | undefined> {
  let table: string;
  try {
    table = await readFile('/proc/net/tcp', 'utf8');
  } catch {
    return undefined;
  }
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return new Set(
    table
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((f) => f[1] === local && f[3] === '0A')
      .map((f) => `socket:[${f[9]}]`),
  );
}

/**
 * Whether process `pid` holds the listening socket on 127.0.0.1:`port`. A port taken between the
 * probe and the bind by someone else's server (another test's: under load seconds pass before the
 * child binds) answers HTTP too; without this a test talked to that stranger and took its 404s for
 * ours. Undecided (true) where there is no /proc.
 */
async function listensThere(pid: number | undefined, port: number): Promise<boolean> {
  const sockets = await listenersOn(port);
  if (!sockets) return true;
  if (pid === undefined || sockets.size === 0) return false;
  for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [])) {
    if (sockets.has(await readlink(`/proc/${pid}/fd/${fd}`).catch(() => ''))) return true;
  }
  return false;
}

/** Starts the process and waits until it is up; if it exits or does not come up in time, it is killed and the error says why. */
export async function spawnServer(o: SpawnOptions): Promise<ServerProcess> {
  const withinMs = o.withinMs ?? 60_000;
  const child = spawn(process.execPath, ['--import', 'tsx', o.entry ?? 'server/index.ts', ...(o.args ?? [])], {
    cwd: root,
    env: { ...o.env, PORT: String(o.port), HOST: '127.0.0.1' },
    stdio: ['ignore', o.stdout ? 'pipe' : 'ignore', 'pipe'],
  });
  let log = '';
  const keep = (d: Buffer | string) => (log = (log + String(d)).slice(-20_000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const base = `http://127.0.0.1:${o.port}`;
  // A port held by something that never answers must not hold the wait: a try ends when the child exits.
  const gone = new AbortController();
  child.once('exit', () => gone.abort());
  const deadline = Date.now() + withinMs;
  // Ready means it answers; poll that rather than sleeping a guessed time.
  for (;;) {
    if (exited(child)) {
      // The child may die before its log says why: a port someone else listens on is said here.
      const taken = (await listenersOn(o.port))?.size ? ` (port ${o.port} is held by another process: EADDRINUSE)` : '';
      throw new Error(`server exited with ${child.exitCode ?? child.signalCode}${taken}:\n${log}`);
    }
    const signal = AbortSignal.any([gone.signal, AbortSignal.timeout(Math.max(1, deadline - Date.now()))]);
    if ((await answers(base, o.healthy ?? false, signal)) && !exited(child) && (await listensThere(child.pid, o.port))) break;
    if (Date.now() > deadline) {
      await stopProcess(child, 'SIGKILL');
      throw new Error(`server did not start within ${withinMs / 1000} s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, base, output: () => log };
}

/**
 * The server tests' start: `env` over this process's own, on a free port; `args` as after `npm start --`.
 * A port someone else bound before the child did is left to them: the child starts again on another.
 */
export async function startServerProcess(env: NodeJS.ProcessEnv, timeoutMs = 60_000, args: string[] = []): Promise<ServerProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await spawnServer({ env: { ...process.env, ...env }, port: await freePort(), withinMs: timeoutMs, args });
    } catch (err) {
      if (!/EADDRINUSE/.test(String(err)) || attempt === 3) throw err;
    }
  }
}

/** Kills the process at once (no clean shutdown) and waits until it is gone. */
export function killHard(proc: ServerProcess): Promise<void> {
  return stopProcess(proc.child, 'SIGKILL');
}

/** Asks for a clean shutdown and waits for it. */
export function stopGracefully(proc: ServerProcess): Promise<void> {
  return stopProcess(proc.child, 'SIGTERM');
}

/** Runs `npm run admin -- <args>` with the server's environment (its data, its database) and returns its stdout. */
export async function runAdmin(env: NodeJS.ProcessEnv, args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'server/cli/admin.ts', ...args], { cwd: root, env });
  return stdout;
}
