/**
 * The other side of an A/B: a commit from this repository's history (BENCH_BASE), as a `git
 * archive` in a temporary directory, built there with its own build and served by its own server,
 * so both sides are what they were. The checkout shares this one's node_modules.
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

export interface Side {
  label: string;
  dist: string;
  server: RunningServer;
  token: string;
}

/** Where a checkout keeps its server launcher: kit/ since it moved there, tests/e2e/support/ before. */
async function serverLauncher(dir: string): Promise<string> {
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
  throw new Error(`no server launcher (kit/server.ts or tests/e2e/support/server.ts) in the checkout at ${dir}`);
}

/** The base commit's checkout, built, and its server started with a link; `stop` takes it all down. `section` names who asks, in errors and logs. */
export async function startBase(commit: string, section: string, log: (m: string) => void): Promise<{ side: Side; stop: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-bench-base-'));
  try {
    await run('bash', ['-c', `set -o pipefail; git -C "${root}" archive "${commit}" | tar -x -C "${dir}"`]).catch((error: unknown) => {
      throw new Error(`${section}: no checkout of ${commit} (BENCH_BASE) from this repository's history (a shallow clone?): ${(error as Error).message}`);
    });
    await symlink(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
    const started = Date.now();
    log(`${section}: building ${commit} in ${dir}`);
    await run(process.execPath, ['scripts/build.mjs'], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
    log(`${section}: ${commit} built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const { startServer } = (await import(pathToFileURL(await serverLauncher(dir)).href)) as {
      startServer: (env: NodeJS.ProcessEnv) => Promise<RunningServer>;
    };
    const server = await startServer({});
    const token = await server.createLink('Bench');
    return {
      side: { label: commit, dist: path.join(dir, 'dist'), server, token },
      stop: async () => {
        await server.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
