/**
 * Runs the admin CLI: in this process through its dispatcher (server/cli/run-admin.ts), which is
 * what `npm run admin --` runs, without starting Node and tsx again for each of the many calls;
 * or, where the process itself is what is tested, as a child process the way npm runs it.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAdmin as runInProcess } from '../../../server/cli/run-admin.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface AdminRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runAdmin(env: NodeJS.ProcessEnv, ...args: string[]): Promise<AdminRun> {
  return inProcess(false, env, args);
}

/** As at a terminal (stdout a TTY): results shown for a person, unless --json. */
export async function runAdminAtTerminal(env: NodeJS.ProcessEnv, ...args: string[]): Promise<AdminRun> {
  return inProcess(true, env, args);
}

async function inProcess(terminal: boolean, env: NodeJS.ProcessEnv, args: string[]): Promise<AdminRun> {
  let stdout = '';
  let stderr = '';
  const code = await runInProcess(args, { env: { ...process.env, ...env }, out: (text) => (stdout += text), err: (text) => (stderr += text), terminal });
  return { code, stdout, stderr };
}

/**
 * `npm run admin -- ...args` as its own process with its stdout a real terminal (a pseudo-terminal
 * from util-linux's `script`, as a person's shell has): what is printed, the terminal's CR LF as LF.
 */
export function runAdminProcessAtTerminal(env: NodeJS.ProcessEnv, ...args: string[]): Promise<AdminRun> {
  const command = [process.execPath, '--import', 'tsx', 'server/cli/admin.ts', ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  return new Promise((resolve) => {
    execFile('script', ['--quiet', '--return', '--command', command, '/dev/null'], { cwd: root, env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout: stdout.replace(/\r\n/g, '\n'), stderr });
    });
  });
}

/** `npm run admin -- ...args` as its own process: what the shell sees. */
export function runAdminProcess(env: NodeJS.ProcessEnv, ...args: string[]): Promise<AdminRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'server/cli/admin.ts', ...args], { cwd: root, env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr });
    });
  });
}
