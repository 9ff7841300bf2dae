/**
 * The other side of an A/B: a commit from this repository's history (BENCH_BASE), as a `git
 * archive` in a temporary directory sharing this checkout's node_modules. `checkOutBase` gives the
 * checkout and its server launcher (the API-server bench starts only that); `startBase` also builds
 * it there with its own build and serves it with its own server, so both sides are what they were.
 */
import { execFile } from 'node:child_process';
import { access, mkdtemp, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { RunningServer } from '../../kit/server.js';
import { root } from '../site.js';

const run = promisify(execFile);

export type ServerLauncher = (env: NodeJS.ProcessEnv) => Promise<RunningServer>;

export interface Side {
  label: string;
  dist: string;
  server: RunningServer;
  token: string;
}

export interface BaseCheckout {
  dir: string;
  /** The checkout's own startServer. */
  launch: ServerLauncher;
  remove: () => Promise<void>;
}

/** Where a checkout keeps its server launcher: kit/ since it moved there, tests/e2e/support/ before. */
async function serverLauncher(dir: string, section: string): Promise<string> {
  for (const file of ['kit/server.ts', 'tests/e2e/support/server.ts']) {
    const at = path.join(dir, file);
    if (
      await access(at).then(
        () => true,
        () => false,
      )
    )
      return at;
  }
  throw new Error(`${section}: no server launcher (kit/server.ts or tests/e2e/support/server.ts) in the checkout of BENCH_BASE at ${dir}`);
}

/** The base commit checked out with its server launcher; `remove` deletes the checkout. `section` names who asks, in errors and logs. */
export async function checkOutBase(commit: string, section: string, log: (m: string) => void): Promise<BaseCheckout> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `milenotes-bench-${section}-base-`));
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    await run('bash', ['-c', `set -o pipefail; git -C "${root}" archive "${commit}" | tar -x -C "${dir}"`]).catch((error: unknown) => {
      throw new Error(`${section}: no checkout of ${commit} (BENCH_BASE) from this repository's history (a shallow clone?): ${(error as Error).message}`);
    });
    await symlink(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
    log(`${section}: ${commit} checked out in ${dir}`);
    const { startServer } = (await import(pathToFileURL(await serverLauncher(dir, section)).href)) as { startServer: ServerLauncher };
    return { dir, launch: startServer, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

/** The base commit's checkout, built, and its server started with a link; `stop` takes it all down. */
export async function startBase(commit: string, section: string, log: (m: string) => void): Promise<{ side: Side; stop: () => Promise<void> }> {
  const base = await checkOutBase(commit, section, log);
  try {
    const started = Date.now();
    log(`${section}: building ${commit} in ${base.dir}`);
    await run(process.execPath, ['scripts/build.mjs'], { cwd: base.dir, maxBuffer: 16 * 1024 * 1024 });
    log(`${section}: ${commit} built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const server = await base.launch({});
    const token = await server.createLink('Bench');
    return {
      side: { label: commit, dist: path.join(base.dir, 'dist'), server, token },
      stop: async () => {
        await server.stop();
        await base.remove();
      },
    };
  } catch (error) {
    await base.remove();
    throw error;
  }
}
