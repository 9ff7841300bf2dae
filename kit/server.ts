/** Starts the real server process (site from dist/ + API) on a free loopback port, for the browser tests, the bench and the engines' tests. */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './freePort.js';
import { root, runAdmin, spawnServer, stopProcess, type ServerProcess } from './serverProcess.js';

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
 * Starts the server; with a `PORT` in `extraEnv` on that port (and only that one), else on a free one.
 * A start that fails leaves nothing behind: the child is stopped and its data folder removed. The
 * port was free when probed, but another process (a fake Apple, a proxy, a benchmark section
 * starting beside us) may take it before the child binds: a child that exits on EADDRINUSE is
 * started again on another port.
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
  let proc: ServerProcess;
  const launch = async () => {
    proc = await spawnServer({ env, port, healthy: true, stdout: true });
  };
  for (let attempt = 1; ; attempt++) {
    try {
      await launch();
      break;
    } catch (err) {
      if (!/EADDRINUSE/.test(String(err)) || attempt === 3 || extraEnv.PORT) {
        await rm(dataDir, { recursive: true, force: true });
        throw err;
      }
      port = await freePort();
      url = `http://127.0.0.1:${port}`;
      Object.assign(env, { PORT: String(port), PUBLIC_URL: extraEnv.PUBLIC_URL ?? url });
    }
  }

  const admin = (...args: string[]) => runAdmin(env, args);
  return {
    url,
    port,
    dataDir,
    env,
    pid: () => (proc.child.exitCode === null && proc.child.signalCode === null ? proc.child.pid : undefined),
    admin,
    async createLink(runner = 'Alex', race = 'chicago-2025') {
      const out = await admin('create-link', '--runner', runner, '--race', race);
      return (JSON.parse(out.trim().split('\n').pop()!) as { token: string }).token;
    },
    async stop(signal) {
      await stopProcess(proc.child, signal);
      if (!signal || signal === 'SIGTERM') await rm(dataDir, { recursive: true, force: true });
    },
    async restart() {
      await stopProcess(proc.child);
      await launch();
    },
  };
}
