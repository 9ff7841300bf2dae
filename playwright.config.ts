import { defineConfig } from '@playwright/test';
import { chromiumArgs, chromiumPath } from './kit/browser/chromium';

// Browser tests run in Debian's Chromium against the production build served by the real
// server (see tests/e2e/fixtures.ts). `npm test` builds the site first.
export default defineConfig({
  testDir: 'tests/e2e',
  // Only the browser specs: what else stands in tests/e2e is their support.
  testMatch: '**/*.spec.ts',
  outputDir: 'test-results/e2e',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  workers: 1,
  fullyParallel: false,
  forbidOnly: true,
  retries: 0,
  reporter: process.env.CI ? [['list'], ['json', { outputFile: 'test-results/e2e.json' }]] : 'list',
  use: {
    browserName: 'chromium',
    launchOptions: { executablePath: chromiumPath, args: chromiumArgs },
    viewport: { width: 390, height: 844 },
    trace: 'off',
  },
});
