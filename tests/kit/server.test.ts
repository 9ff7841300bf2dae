/**
 * The browser tests' and the bench's server launcher: a fixed PORT is the port it waits on, and a
 * start that fails leaves no server process and no data folder behind.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../kit/freePort.js';
import { startServer } from '../../kit/server.js';

/** The server processes this test process started and that still run. */
const serverChildren = () =>
  execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes('server/index.ts'));
const dataDirs = () => new Set(readdirSync(os.tmpdir()).filter((d) => d.startsWith('milenotes-e2e-')));

describe('startServer', () => {
  const blockers: Server[] = [];
  afterAll(() => {
    for (const b of blockers) b.close();
  });

  it('should wait on the PORT it was given and serve there', async () => {
    const port = await freePort();
    const server = await startServer({ PORT: String(port), CONVERT_WORKER: 'off' });
    try {
      expect(server.port).toBe(port);
      expect(server.url).toBe(`http://127.0.0.1:${port}`);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it('should stop its child and remove its data folder when the given PORT is taken', async () => {
    const port = await freePort();
    const blocker = createServer().listen(port, '127.0.0.1');
    blockers.push(blocker);
    await new Promise((r) => blocker.once('listening', r));
    // A temp folder of this test's own: other test files start servers (and make data folders) at the same time.
    const shared = process.env.TMPDIR;
    process.env.TMPDIR = mkdtempSync(path.join(os.tmpdir(), 'kit-server-test-'));
    try {
      const before = dataDirs();
      await expect(startServer({ PORT: String(port), CONVERT_WORKER: 'off' })).rejects.toThrow(/EADDRINUSE|exited/);
      expect(serverChildren()).toEqual([]);
      const left = [...dataDirs()].filter((d) => !before.has(d) && existsSync(path.join(os.tmpdir(), d)));
      expect(left).toEqual([]);
    } finally {
      rmSync(os.tmpdir(), { recursive: true, force: true });
      if (shared === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = shared;
    }
  });
});
