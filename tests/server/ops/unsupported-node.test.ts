/**
 * On a Node older than package.json's "engines" (Node 20, from the npm registry's binary package as
 * CI gets its Node 24), every npm command that starts Node says which Node it needs and how to get
 * one, and stops before loading anything: no data folder, no build. It does so in a copy of the
 * repository with no node_modules (what a refused `npm ci` leaves), and in this one, whose
 * node_modules were installed for a newer Node (a new terminal, back on the old Node).
 * `npm ci` refuses that Node with npm's own error (.npmrc: engine-strict).
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, cp, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeSupported, nodeWanted } from '../../../server/node-version.mjs';
import { OLD_NODE, registryNode } from '../support/registry-node.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const scripts: Record<string, string> = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')).scripts;
/** Every script that starts Node, as its user types it (`npm start`, `npm run admin`). */
const nodeCommands = Object.entries(scripts)
  .filter(([, command]) => command.startsWith('node '))
  .map(([name]) => ({ command: ['start', 'test'].includes(name) ? `npm ${name}` : `npm run ${name}`, args: ['run', name] }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The repository's files as a fresh clone has them (this worktree's, uncommitted changes included), without node_modules. */
async function copyWithoutNodeModules(into: string): Promise<void> {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file && file !== 'node_modules' && existsSync(path.join(root, file)));
  for (const file of files) {
    await mkdir(path.dirname(path.join(into, file)), { recursive: true });
    await cp(path.join(root, file), path.join(into, file), { verbatimSymlinks: true });
  }
}

describe.concurrent(`npm on Node ${OLD_NODE}, older than package.json's engines`, () => {
  let bin: string;
  let work: string;
  let bare: string;
  let dataDir: string;
  let wanted: string;
  let bareTopLevel: string[];

  beforeAll(async () => {
    // Fetched by .ci/run before the tests; elsewhere the first run fetches it (the registry may be slow).
    bin = await registryNode(OLD_NODE);
    work = await mkdtemp(path.join(os.tmpdir(), 'milenotes-old-node-'));
    dataDir = path.join(work, 'data');
    bare = path.join(work, 'clone');
    await copyWithoutNodeModules(bare);
    bareTopLevel = (await readdir(bare)).sort();
    wanted = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')).engines.node;
  }, 600_000);
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  /** npm (this machine's) with the old Node first on PATH, as a shell whose `node` is that one runs it. */
  const npm = (args: string[], cwd = root): Promise<Run> =>
    new Promise((resolve) => {
      const env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}`, DATA_DIR: dataDir, PORT: '0' };
      execFile('npm', args, { cwd, env, timeout: 60_000 }, (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
      });
    });

  const expectTheAdvice = (run: Run, command: string) => {
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`MileNotes needs Node 22.14 or newer (package.json "engines": "${wanted}"); this is Node ${OLD_NODE}`);
    expect(run.stderr).toContain(`${command} stops here`);
    expect(run.stderr).toContain('source scripts/node24.sh');
    expect(run.stderr).toContain('https://nodejs.org/en/download');
    expect(run.stderr).toContain(`and \`${command}\` again`);
    expect(run.stderr).not.toMatch(/Segmentation fault|ERR_MODULE_NOT_FOUND|Error:|at .*\(node:/);
    expect(existsSync(dataDir)).toBe(false);
  };

  it('should cover every command a person runs', () => {
    const covered = nodeCommands.map((c) => c.command);
    for (const command of ['npm start', 'npm run demo', 'npm run admin', 'npm test', 'npm run serve', 'npm run bench', 'npm run build']) {
      expect(covered).toContain(command);
    }
  });

  it.each(nodeCommands)('$command should name the Node it needs and how to get it with nothing installed', async ({ command, args }) => {
    const run = await npm([...args, ...(command === 'npm run admin' ? ['--', 'list-races'] : [])], bare);
    expectTheAdvice(run, command);
    expect((await readdir(bare)).sort()).toEqual(bareTopLevel);
  });

  it.each([
    ['npm start', ['start']],
    ['npm run admin', ['run', 'admin', '--', 'list-races']],
    ['npm run demo', ['run', 'demo']],
  ])('%s should say the same where node_modules was installed for a newer Node', async (command, args) => {
    expectTheAdvice(await npm(args), command);
  });

  it('should read the lowest Node from package.json and judge versions by it', () => {
    expect(nodeWanted()).toMatchObject({ range: wanted, words: 'Node 22.14 or newer' });
    expect(['20.20.2', '22.13.1', 'v22.12.0'].map((v) => nodeSupported(v))).toEqual([false, false, false]);
    expect(['22.14.0', 'v22.20.1', '23.0.0', '24.21.0'].map((v) => nodeSupported(v))).toEqual([true, true, true, true]);
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
