/**
 * The demo's server: the real server process, as `npm start` runs it but on the demo's compressed
 * clock (./serve.ts), on the port asked for, in a data folder of its own (never ./data), and the
 * admin CLI against that folder. If the server does not come up, it is stopped before the error is
 * told: the demo leaves no process behind.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const root = path.resolve(import.meta.dirname, '..');
/** A slow machine (the build just done, a busy CI runner) can take a while to load the server. */
const START_WITHIN_MS = 120_000;

export interface DemoServer {
  /** Where this process reaches it. */
  url: string;
  dataDir: string;
  admin(...args: string[]): Promise<string>;
  /** Stops the server; the data folder is removed unless kept. */
  stop(keepData: boolean): Promise<void>;
}

/** The demo's clock as ./serve.ts takes it: it reads the real time at `origin`, and runs `rate` times as fast. */
export interface ClockArgs {
  origin: number;
  rate: number;
}

export async function startDemoServer(port: number, clock: ClockArgs, extraEnv: NodeJS.ProcessEnv): Promise<DemoServer> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-demo-'));
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, DIST_DIR: path.join(root, 'dist'), LOG_LEVEL: 'warn', ...extraEnv,
  };
  let log = '';
  const clockArgs = ['--clock-origin', String(clock.origin), '--clock-rate', String(clock.rate)];
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'demo/serve.ts', ...clockArgs], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  // The server's own warnings go to the demo's stderr only if it fails; a demo's terminal shows the race.
  child.stdout?.on('data', (d) => (log = (log + String(d)).slice(-20_000)));
  child.stderr?.on('data', (d) => (log = (log + String(d)).slice(-20_000)));
  const running = () => child.exitCode === null && child.signalCode === null;
  const stop = async (keepData: boolean) => {
    if (running()) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    if (!keepData) await rm(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + START_WITHIN_MS;
  for (;;) {
    if (!running()) {
      await stop(false);
      throw new Error(`the server exited with ${child.exitCode ?? child.signalCode}:\n${log}`);
    }
    const up = await fetch(`${url}/healthz`).then(async (r) => r.ok && ((await r.json()) as { status?: string }).status === 'ok', () => false);
    if (up) break;
    if (Date.now() > deadline) {
      await stop(false);
      throw new Error(`the server did not start within ${START_WITHIN_MS / 1000} s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    dataDir,
    admin: async (...args) => (await promisify(execFile)(process.execPath, ['--import', 'tsx', 'server/cli/admin.ts', ...args], { cwd: root, env })).stdout,
    stop,
  };
}
