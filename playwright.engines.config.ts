import { defineConfig } from '@playwright/test';
import type { EngineName } from './tests/engines/driver';

// The recorder's delivery journey in the three engines (tests/engines), each scenario written
// once over a small driver layer. Playwright is only the runner here: WebKit is driven by
// WebDriver classic, Firefox by WebDriver BiDi, Chromium by Playwright as in tests/e2e.
// Debian's binaries only (webkit2gtk-driver, xvfb, firefox-esr, chromium); `npm test` builds first.
const engines: EngineName[] = ['webkit', 'firefox', 'chromium'];

export default defineConfig<object, { engineName: EngineName }>({
  testDir: 'tests/engines',
  outputDir: 'test-results/engines',
  timeout: 90_000,
  workers: 1,
  fullyParallel: false,
  forbidOnly: true,
  // Once more after a failure, believed by scripts/test.mjs only when the browser itself ended under the first attempt (scripts/engine-reruns.mjs).
  retries: 1,
  reporter: process.env.CI ? [['list'], ['json', { outputFile: 'test-results/engines.json' }]] : 'list',
  // The home screen's list (home-screen.spec.ts) is WebKit's alone: iPhone's engine; Chromium's runs in tests/e2e.
  projects: engines.map((engineName) => ({ name: engineName, use: { engineName }, ...(engineName !== 'webkit' && { testIgnore: /home-screen\.spec\.ts$/ }) })),
});
