/**
 * On a Node older than package.json's "engines" (Node 20, from the npm registry's binary package as
 * CI gets its Node 24), `npm start`, `npm run admin` and `npm run demo` say which Node they need and
 * how to get one, and stop before loading anything: no data folder is made. Before issue 37 the
 * first start built the site and died of a segmentation fault in better-sqlite3 without a word.
 * `npm ci` refuses that Node with npm's own error (.npmrc: engine-strict).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeSupported, nodeWanted } from '../../../server/node-version.mjs';
import { OLD_NODE, registryNode } from '../support/registry-node.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe.concurrent(`npm on Node ${OLD_NODE}, older than package.json's engines`, () => {
  let bin: string;
  let dataDir: string;
  let wanted: string;

  beforeAll(async () => {
    bin = await registryNode(OLD_NODE);
    dataDir = path.join(await mkdtemp(path.join(os.tmpdir(), 'milenotes-old-node-')), 'data');
    wanted = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')).engines.node;
    // Fetched by .ci/run before the tests; elsewhere the first run fetches it (the registry may be slow).
  }, 600_000);
  afterAll(async () => {
    if (dataDir) await rm(path.dirname(dataDir), { recursive: true, force: true });
  });

  /** npm (this machine's) with the old Node first on PATH, as a shell whose `node` is that one runs it. */
  const npm = (args: string[], cwd = root): Promise<Run> =>
    new Promise((resolve) => {
      const env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}`, DATA_DIR: dataDir, PORT: '0' };
      execFile('npm', args, { cwd, env, timeout: 60_000 }, (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
      });
    });

  it.each([
    ['npm start', ['start']],
    ['npm run admin', ['run', 'admin', '--', 'list-races']],
    ['npm run demo', ['run', 'demo']],
  ])('%s should name the Node it needs and how to get it, and stop before touching anything', async (command, args) => {
    const run = await npm(args);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`MileNotes needs Node 22.12 or newer (package.json "engines": "${wanted}"); this is Node ${OLD_NODE}`);
    expect(run.stderr).toContain(`${command} stops here`);
    expect(run.stderr).toContain('https://nodejs.org/en/download');
    expect(run.stderr).toContain('source scripts/node24.sh');
    expect(run.stderr).not.toMatch(/Segmentation fault|Error:|at .*\(node:/);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('should read the lowest Node from package.json and judge versions by it', () => {
    expect(nodeWanted()).toMatchObject({ range: wanted, words: 'Node 22.12 or newer' });
    expect(['20.20.2', '22.11.9', 'v22.11.0'].map((v) => nodeSupported(v))).toEqual([false, false, false]);
    expect(['22.12.0', 'v22.20.1', '23.0.0', '24.21.0'].map((v) => nodeSupported(v))).toEqual([true, true, true, true]);
  });

  it("npm ci should refuse it with npm's own error naming the engines wanted", async () => {
    const copy = await mkdtemp(path.join(os.tmpdir(), 'milenotes-old-node-ci-'));
    try {
      for (const file of ['package.json', 'package-lock.json', '.npmrc']) await copyFile(path.join(root, file), path.join(copy, file));
      const run = await npm(['ci', '--prefer-offline', '--no-audit', '--no-fund'], copy);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain('EBADENGINE');
      expect(run.stderr).toContain(`Required: {"node":"${wanted}"}`);
      expect(existsSync(path.join(copy, 'node_modules'))).toBe(false);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });
});
