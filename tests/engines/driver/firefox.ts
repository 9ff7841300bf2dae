/**
 * Firefox ESR through WebDriver BiDi, with puppeteer-core 24: the last major that runs on Node 20
 * (25 wants Node 22), already in the tree through lighthouse. It starts Debian's firefox-esr on a
 * profile folder, writes our prefs into it, and ends the browser's processes on close.
 */
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { withTimeout, type Engine, type LaunchOptions } from './types';

const FIREFOX = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';

const prefs = {
  // A fake microphone (a tone) with no permission prompt.
  'media.navigator.streams.fake': true,
  'media.navigator.permission.disabled': true,
  // A closed network: no update checks, telemetry or remote settings.
  'app.update.enabled': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'toolkit.telemetry.enabled': false,
};

async function start(profileDir: string): Promise<{ browser: Browser; page: Page }> {
  const browser = await withTimeout(
    puppeteer.launch({
      browser: 'firefox',
      executablePath: FIREFOX,
      headless: true,
      userDataDir: profileDir,
      extraPrefsFirefox: prefs,
      protocolTimeout: 60_000,
    }),
    60_000,
    `firefox-esr did not start within 60 s (${FIREFOX})`,
  );
  const page = (await browser.pages())[0] ?? (await browser.newPage());
  await page.setViewport({ width: 390, height: 844 });
  return { browser, page };
}

async function stop(browser: Browser): Promise<void> {
  const child = browser.process();
  await withTimeout(browser.close(), 20_000, 'firefox-esr did not close within 20 s').catch((error: unknown) => {
    child?.kill('SIGKILL');
    throw error;
  });
}

export async function launchFirefox({ profileDir }: LaunchOptions): Promise<Engine> {
  let current: { browser: Browser; page: Page } | undefined = await start(profileDir);
  const page = () => {
    if (!current) throw new Error('Firefox is closed');
    return current.page;
  };
  return {
    name: 'firefox',
    restartKind: 'browser',
    async open(url) {
      await page().goto(url, { waitUntil: 'load' });
    },
    async reload() {
      await page().reload({ waitUntil: 'load' });
    },
    async evaluate<T>(expression: string) {
      return (await page().evaluate(expression)) as T;
    },
    async click(selector) {
      await page().click(selector);
    },
    async restart() {
      const browser = current!.browser;
      current = undefined;
      await stop(browser);
      current = await start(profileDir);
    },
    async close() {
      const browser = current?.browser;
      current = undefined;
      if (browser) await stop(browser);
    },
  };
}
