/**
 * The demo's server: the real server process, as `npm start` runs it but on the demo's compressed
 * clock (./serve.ts), on the port asked for, in a data folder of its own (never ./data), and the
 * admin CLI against that folder. If the server does not come up, it is stopped before the error is
 * told: the demo leaves no process behind.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { root, runAdmin, spawnServer, stopProcess } from '../kit/serverProcess.js';

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
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DIST_DIR: path.join(root, 'dist'),
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  const clockArgs = ['--clock-origin', String(clock.origin), '--clock-rate', String(clock.rate)];
  // The server's own warnings go to the demo's stderr only if it fails; a demo's terminal shows the race.
  const proc = await spawnServer({ env, port, entry: 'demo/serve.ts', args: clockArgs, withinMs: START_WITHIN_MS, healthy: true, stdout: true }).catch(
    async (err: unknown) => {
      await rm(dataDir, { recursive: true, force: true });
      throw err;
    },
  );
  const stop = async (keepData: boolean) => {
    await stopProcess(proc.child);
    if (!keepData) await rm(dataDir, { recursive: true, force: true });
  };
  return {
    url,
    dataDir,
    admin: (...args) => runAdmin(env, args),
    stop,
  };
}
