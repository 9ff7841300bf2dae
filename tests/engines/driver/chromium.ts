/** Debian's Chromium through Playwright, as the rest of the browser tests drive it. */
import { chromium, type BrowserContext } from '@playwright/test';
import { chromiumArgs, chromiumPath, fakeMicrophoneArgs } from '../../../kit/browser/chromium';
import type { Engine, LaunchOptions } from './types';

export async function launchChromium({ profileDir, wav }: LaunchOptions): Promise<Engine> {
  const start = () =>
    chromium.launchPersistentContext(profileDir, {
      executablePath: chromiumPath,
      args: [...chromiumArgs, ...fakeMicrophoneArgs(wav)],
      viewport: { width: 390, height: 844 },
      permissions: ['microphone', 'background-sync'],
    });
  let context: BrowserContext | undefined = await start();
  const page = async () => {
    if (!context) throw new Error('Chromium is closed');
    return context.pages()[0] ?? (await context.newPage());
  };
  return {
    name: 'chromium',
    restartKind: 'browser',
    async open(url) {
      await (await page()).goto(url);
    },
    async reload() {
      await (await page()).reload();
    },
    async evaluate<T>(expression: string) {
      return (await (await page()).evaluate(expression)) as T;
    },
    async click(selector) {
      await (await page()).click(selector);
    },
    async restart() {
      await context?.close();
      context = await start();
    },
    async close() {
      const closing = context;
      context = undefined;
      await closing?.close();
    },
  };
}
