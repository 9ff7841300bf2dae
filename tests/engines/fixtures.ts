/**
 * Fixtures for the engine scenarios: per worker, one real server and one browser of the project's
 * engine; per test, the bad network in its faults mode on a new port, so each test has a fresh origin (its own storage
 * and service worker) in the shared browser.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test as base, expect } from '@playwright/test';
import { speechWav } from '../../stand-ins/speech';
import { startServer, type RunningServer } from '../../kit/server';
import { BROWSER_GONE } from '../../scripts/engine-reruns.mjs';
import { launchEngine, type Engine, type EngineName } from './driver';
import { startBadNetwork, type FaultProxy } from '../../stand-ins/badNetwork/index';
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
    const faults = await startBadNetwork({ host: '127.0.0.1', port: server.port }, { kind: 'faults' });
    await use(faults);
    // A failure says what the browser had asked for and what was still unanswered.
    const failed = testInfo.status !== testInfo.expectedStatus;
    if (failed) console.log(`[faults] ${testInfo.title}: the proxy's last requests:\n  ${faults.traffic().join('\n  ')}`);
    const owed = faults.owed();
    await faults.close();
    // A browser that stopped answering (BrowserGone) while our server still owed it an answer may not be the browser's
    // fault alone: this second error keeps npm test from believing a second run (scripts/engine-reruns.mjs).
    if (failed && owed.length > 0 && testInfo.errors.some((e) => e.message?.includes(BROWSER_GONE))) {
      throw new Error(`Not the browser alone: it stopped answering while the server had not answered ${owed.join('; ')}`);
    }
  },
  tab: async ({ engine }, use) => use(new EnginePage(engine)),
});
