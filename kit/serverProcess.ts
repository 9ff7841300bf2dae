/** The real server as a child process (node --import tsx server/index.ts), for the server's crash tests and the bench. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './freePort.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface ServerProcess {
  child: ChildProcess;
  base: string;
  /** Everything the process wrote to stderr, for failure messages. */
  stderr(): string;
}

/** `args`: what follows `npm start --` on the command line (npm start runs server/index.ts in its own process, args and all). */
export async function startServerProcess(env: NodeJS.ProcessEnv, timeoutMs = 60_000, args: string[] = []): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts', ...args], {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  // Ready means it answers HTTP; poll that state rather than sleeping a guessed time.
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${stderr}`);
    try {
      await fetch(`${base}/healthz`);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`server did not start in ${timeoutMs} ms: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { child, base, stderr: () => stderr };
}

/** Kills the process at once (no clean shutdown) and waits until it is gone. */
export function killHard(proc: ServerProcess): Promise<void> {
  return new Promise((resolve) => {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) return resolve();
    proc.child.once('exit', () => resolve());
    proc.child.kill('SIGKILL');
  });
}

/** Asks for a clean shutdown and waits for it. */
export function stopGracefully(proc: ServerProcess): Promise<void> {
  return new Promise((resolve) => {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) return resolve();
    proc.child.once('exit', () => resolve());
    proc.child.kill('SIGTERM');
  });
}
