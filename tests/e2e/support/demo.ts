/** Runs `npm run demo` (demo/run.mjs) as a user would, and reads the links it prints. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../../kit/freePort';

const root = path.resolve(import.meta.dirname, '../../..');

export interface RunningDemo {
  child: ChildProcess;
  recorderLink: string;
  watchUrl: string;
  dataDir: string;
  serverPort: number;
  output(): string;
  /** Resolves with the exit code once the demo has exited. */
  exited: Promise<number | null>;
}

export async function startDemo(args: string[]): Promise<RunningDemo> {
  const serverPort = await freePort();
  const watchPort = await freePort();
  let out = '';
  const child = spawn(process.execPath, ['demo/run.mjs', ...args, '--watch-port', String(watchPort)], {
    cwd: root,
    env: { ...process.env, PORT: String(serverPort) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 150_000;
  for (;;) {
    const link = /Recorder link for a friend: (\S+)/.exec(out)?.[1];
    const watch = /Watch page \(the runner's phone\): (\S+)/.exec(out)?.[1];
    const dataDir = /Data folder: (\S+)/.exec(out)?.[1];
    if (link && watch && dataDir) return { child, recorderLink: link, watchUrl: watch, dataDir, serverPort, output: () => out, exited };
    if (child.exitCode !== null) throw new Error(`the demo exited with ${child.exitCode}:\n${out}`);
    if (Date.now() > deadline) throw new Error(`the demo printed no links within 150 s:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
