/** Starts the real server process (site from dist/ + API) on a free loopback port, for the browser tests, the bench and the engines' tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './freePort.js';
import { execFile } from 'node:child_process';

const root = path.resolve(import.meta.dirname, '..');

export interface RunningServer {
  url: string;
  port: number;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  /** The server process's id (changes on restart); undefined once it has exited. */
  pid(): number | undefined;
  /** Runs `npm run admin -- <args>` against this server's data and returns its stdout. */
  admin(...args: string[]): Promise<string>;
  /** Creates a recorder link and returns its token. */
  createLink(runner?: string, race?: string): Promise<string>;
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Stops and starts the process again on the same port and data. */
  restart(): Promise<void>;
}

/**
 * Waits until this child answers /healthz. The port was free when probed, but another process
 * (a fake Apple, a proxy, a benchmark section starting beside us) may take it before the child
 * binds: then something else answers, so only our own health answer counts, and a child that
 * exits on EADDRINUSE is reported as such for startServer to try another port.
 */
async function waitUntilUp(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  // A port held by something that never answers must not hold the wait: a try ends when the child exits.
  const exited = new AbortController();
  child.once('exit', () => exited.abort());
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output()}`);
    const signal = AbortSignal.any([exited.signal, AbortSignal.timeout(Math.max(1, deadline - Date.now()))]);
    const up = await fetch(`${url}/healthz`, { signal }).then(async (r) => r.ok && ((await r.json()) as { status?: string }).status === 'ok', () => false);
    if (up && child.exitCode === null) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server did not start within 60 s:\n${output()}`);
}

/**
 * Starts the server; with a `PORT` in `extraEnv` on that port (and only that one), else on a free one.
 * A start that fails leaves nothing behind: the child is stopped and its data folder removed.
 */
export async function startServer(extraEnv: NodeJS.ProcessEnv = {}): Promise<RunningServer> {
  let port = extraEnv.PORT ? Number(extraEnv.PORT) : await freePort();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-e2e-'));
  let url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: url,
    DATA_DIR: dataDir,
    DIST_DIR: path.join(root, 'dist'),
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  let child: ChildProcess;
  let log = '';
  const launch = async () => {
    log = '';
    child = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (d) => (log += d));
    child.stderr?.on('data', (d) => (log += d));
    await waitUntilUp(url, child, () => log);
  };
  const stopProcess = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
  };
  for (let attempt = 1; ; attempt++) {
    try {
      await launch();
      break;
    } catch (err) {
      await stopProcess('SIGKILL');
      if (!/EADDRINUSE/.test(String(err)) || attempt === 3 || extraEnv.PORT) {
        await rm(dataDir, { recursive: true, force: true });
        throw err;
      }
      port = await freePort();
      url = `http://127.0.0.1:${port}`;
      Object.assign(env, { PORT: String(port), PUBLIC_URL: extraEnv.PUBLIC_URL ?? url });
    }
  }

  const admin = async (...args: string[]) => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'server/cli/admin.ts', ...args], { cwd: root, env });
    return stdout;
  };
  return {
    url,
    port,
    dataDir,
    env,
    pid: () => (child.exitCode === null && child.signalCode === null ? child.pid : undefined),
    admin,
    async createLink(runner = 'Alex', race = 'chicago-2025') {
      const out = await admin('create-link', '--runner', runner, '--race', race);
      return (JSON.parse(out.trim().split('\n').pop()!) as { token: string }).token;
    },
    async stop(signal) {
      await stopProcess(signal);
      if (!signal || signal === 'SIGTERM') await rm(dataDir, { recursive: true, force: true });
    },
    async restart() {
      await stopProcess();
      await launch();
    },
  };
}
