/**
 * The browser tests' fixtures: one real server process per Playwright worker, serving the
 * production build from dist/ with its own temporary data directory.
 */
import { test as base, expect } from '@playwright/test';
import { startServer, type RunningServer } from '../../kit/server';

export { chromiumArgs, chromiumPath, fakeMicrophoneArgs } from '../../kit/browser/chromium';
export { speechWav } from '../../stand-ins/speech';
export { startServer, type RunningServer } from '../../kit/server';
export { expect };

export const test = base.extend<{ consoleMessages: string[] }, { server: RunningServer }>({
  server: [
    async ({}, use) => {
      const server = await startServer();
      await use(server);
      await server.stop();
    },
    { scope: 'worker' },
  ],
  baseURL: async ({ server }, use) => use(server.url),
  /** Every console message of the page, as text, in order. */
  consoleMessages: async ({ page }, use) => {
    const messages: string[] = [];
    page.on('console', (message) => messages.push(message.text()));
    await use(messages);
  },
});
