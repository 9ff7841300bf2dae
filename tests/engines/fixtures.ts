/**
 * Fixtures for the engine scenarios: per worker, one real server and one browser of the project's
 * engine; per test, a fault proxy on a new port, so each test has a fresh origin (its own storage
 * and service worker) in the shared browser.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test as base, expect } from '@playwright/test';
import { speechWav } from '../../stand-ins/speech';
import { startServer, type RunningServer } from '../../kit/server';
import { launchEngine, type Engine, type EngineName } from './driver';
import { startFaultProxy, type FaultProxy } from './support/faultProxy';
import { EnginePage } from './support/page';

export { expect };

export const test = base.extend<{ faults: FaultProxy; tab: EnginePage }, { engineName: EngineName; server: RunningServer; engine: Engine; wav: string }>({
  engineName: ['webkit', { option: true, scope: 'worker' }],
  wav: [async ({}, use) => use(await speechWav()), { scope: 'worker' }],
  server: [
    async ({}, use) => {
      const server = await startServer();
      await use(server);
      await server.stop();
    },
    { scope: 'worker' },
  ],
  engine: [
    async ({ engineName, wav }, use) => {
      const profileDir = await mkdtemp(path.join(os.tmpdir(), `milenotes-${engineName}-`));
      const engine = await launchEngine(engineName, { profileDir, wav });
      try {
        await use(engine);
      } finally {
        await engine.close();
        await rm(profileDir, { recursive: true, force: true });
      }
    },
    { scope: 'worker', timeout: 90_000 },
  ],
  faults: async ({ server }, use, testInfo) => {
    const faults = await startFaultProxy(server.port);
    await use(faults);
    // A failure says what the browser had asked for and what was still unanswered.
    if (testInfo.status !== testInfo.expectedStatus) console.log(`[faults] ${testInfo.title}: the proxy's last requests:\n  ${faults.traffic().join('\n  ')}`);
    await faults.close();
  },
  tab: async ({ engine }, use) => use(new EnginePage(engine)),
});
