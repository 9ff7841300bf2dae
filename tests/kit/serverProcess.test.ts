/**
 * The server tests' process start: up means this child answers, never someone else's server on the
 * port it was given (a port taken between the probe and the bind, as other tests' servers do under load).
 */
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../kit/freePort.js';
import { spawnServer } from '../../kit/serverProcess.js';

describe('spawnServer', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(() => Promise.all(cleanups.map((c) => c())));

  it('should not take another server answering on its port for its child', async () => {
    const port = await freePort();
    // A stranger that answers every path, /healthz with ok too: another test's server on the same port.
    const stranger: Server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'));
    await new Promise<void>((resolve) => stranger.listen(port, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => stranger.close(resolve)));
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-test-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const env = { ...process.env, DATA_DIR: dataDir, DIST_DIR: path.join(dataDir, 'no-dist'), LOG_LEVEL: 'error', CONVERT_WORKER: 'off' };
    for (const healthy of [false, true]) {
      await expect(spawnServer({ env, port, healthy })).rejects.toThrow(/EADDRINUSE/);
    }
  });
});
