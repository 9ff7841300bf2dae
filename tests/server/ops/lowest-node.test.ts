/**
 * The lowest Node package.json's "engines" accepts really runs the server's SQLite driver: its
 * binary is built for a Node-API that older 22.x releases lack, and there it dies of a segmentation
 * fault at the first statement, without a word. That Node comes from the npm registry's binary package,
 * as CI's Node 24 does.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { nodeWanted } from '../../../server/node-version.mjs';
import { registryNode } from '../support/registry-node.js';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const lowest = nodeWanted().lowest.join('.');

describe(`Node ${lowest}, the lowest package.json accepts`, () => {
  it('should open a SQLite database with the driver npm installed', async () => {
    const bin = await registryNode(lowest);
    const script = "const D = require('better-sqlite3'); const db = new D(':memory:'); console.log(db.prepare('select 41 + 1 as n').get().n)";
    const { stdout } = await run(path.join(bin, 'node'), ['-e', script], { cwd: root });
    expect(stdout.trim()).toBe('42');
  }, 600_000);
});
