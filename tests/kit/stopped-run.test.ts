/**
 * npm test stopped half-way (CI's SIGTERM, a person's Ctrl-C) leaves nothing behind: no PostgreSQL,
 * no server process, no temp folder. The run is npm test's own machinery (scripts/test-run.mjs) with
 * one step, vitest with the server tests' setup on a test that holds a database, a data folder and a
 * server process (./stopped-run/). Its temp folders go in a folder of this test's own, so what other
 * runs on this machine leave in /tmp is no matter.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

/** The processes whose command line or environment names `dir`: everything the run started has TMPDIR inside it. */
function processesNaming(dir: string): string[] {
  return readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid) && Number(pid) !== process.pid)
    .flatMap((pid) => {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
        const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
        return cmdline.includes(dir) || environ.includes(dir) ? [`${pid} ${cmdline.slice(0, 200)}`] : [];
      } catch {
        return [];
      }
    });
}

const exited = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

async function ready(file: string, child: ChildProcess, output: () => string): Promise<{ serverPid: number; dataDir: string }> {
  const deadline = Date.now() + 120_000;
  while (!existsSync(file) || readFileSync(file, 'utf8') === '') {
    if (child.exitCode !== null) throw new Error(`the run ended before holding anything:\n${output()}`);
    if (Date.now() > deadline) throw new Error(`the run held nothing within 120 s:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return JSON.parse(readFileSync(file, 'utf8'));
}

describe.concurrent('npm test stopped half-way', () => {
  it.each([
    ['SIGTERM to its process (CI cancelling it)', 'SIGTERM', 'process', 143],
    ['Ctrl-C (SIGINT to the terminal’s process group)', 'SIGINT', 'group', 130],
  ] as const)(
    'by %s should stop everything its steps started and remove its temp folders',
    async (_how, signal, to, code) => {
      // World-writable like /tmp: PostgreSQL's user makes its cluster in the run's folder inside it.
      const base = mkdtempSync(path.join(os.tmpdir(), 'milenotes-stopped-run-'));
      chmodSync(base, 0o1777);
      const notes = mkdtempSync(path.join(os.tmpdir(), 'milenotes-stopped-run-ready-'));
      const readyFile = path.join(notes, 'ready.json');
      try {
        // Its own process group, as a shell gives npm test; the steps get groups of their own from the run.
        const run = spawn(process.execPath, ['tests/kit/stopped-run/run-one-step.mjs'], {
          cwd: root,
          detached: true,
          env: { ...process.env, TMPDIR: base, HOLD_READY: readyFile },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        run.stdout!.on('data', (d) => (output += d));
        run.stderr!.on('data', (d) => (output += d));
        const end = exited(run);
        const held = await ready(readyFile, run, () => output);
        expect(held.dataDir.startsWith(base), held.dataDir).toBe(true);
        expect(
          processesNaming(base).some((p) => p.includes('postgres -D')),
          'PostgreSQL runs in the run’s temp folder',
        ).toBe(true);

        const target = to === 'group' ? -run.pid! : run.pid!;
        process.kill(target, signal);
        // A terminal's Ctrl-C reaches npm test twice: from the terminal, and from npm passing it on.
        if (to === 'group') process.kill(target, signal);
        expect(await end, output).toEqual({ code, signal: null });
        expect(output).toContain(`npm test: ${signal}: stopping what the running steps started`);
        expect(processesNaming(base)).toEqual([]);
        expect(() => process.kill(held.serverPid, 0)).toThrow();
        expect(readdirSync(base)).toEqual([]);
      } finally {
        rmSync(notes, { recursive: true, force: true });
        rmSync(base, { recursive: true, force: true });
      }
    },
    240_000,
  );
});
