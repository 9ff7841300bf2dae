/**
 * The API-server bench's other side: the server of a commit from this repository's history
 * (BENCH_BASE), as a `git archive` in a temporary directory sharing this checkout's node_modules,
 * started by its own launcher so that its server is what it was. Only the server: the bench asks
 * no page, so it serves this checkout's build, and the load (apps, friends, converting stand-in,
 * the race added through the admin command) stays this checkout's, which assumes the two sides'
 * schemas and API agree (a base a few commits back).
 */
import { execFile } from 'node:child_process';
import { access, mkdtemp, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { RunningServer } from '../../kit/server.js';
import { root } from '../../kit/serverProcess.js';

export type ServerLauncher = (env: NodeJS.ProcessEnv) => Promise<RunningServer>;

/** Where a checkout keeps its server launcher: kit/ since it moved there, tests/e2e/support/ before. */
async function launcherIn(dir: string): Promise<string> {
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
  throw new Error(`apiserver: no server launcher (kit/server.ts or tests/e2e/support/server.ts) in the checkout of BENCH_BASE at ${dir}`);
}

/** The base commit's server, ready to start with the rig's settings; `remove` deletes the checkout. */
export async function baseServer(commit: string, log: (m: string) => void): Promise<{ launch: ServerLauncher; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-bench-apiserver-base-'));
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    await promisify(execFile)('bash', ['-c', `set -o pipefail; git -C "${root}" archive "${commit}" | tar -x -C "${dir}"`]).catch((error: unknown) => {
      throw new Error(`apiserver: no checkout of ${commit} (BENCH_BASE) from this repository's history (a shallow clone?): ${(error as Error).message}`);
    });
    await symlink(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
    log(`apiserver: the server of ${commit} checked out in ${dir}`);
    const { startServer } = (await import(pathToFileURL(await launcherIn(dir)).href)) as { startServer: ServerLauncher };
    return { launch: (env) => startServer({ DIST_DIR: path.join(root, 'dist'), ...env }), remove };
  } catch (error) {
    await remove();
    throw error;
  }
}
