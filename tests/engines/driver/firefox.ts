/**
 * Firefox ESR through WebDriver BiDi, with puppeteer-core 24: the last major that runs on Node 20
 * (25 wants Node 22), already in the tree through lighthouse. It starts Debian's firefox-esr on a
 * profile folder, writes our prefs into it, and ends the browser's processes on close.
 */
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { BrowserGone, withTimeout, type Engine, type LaunchOptions } from './types';

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

/** A running Firefox; `ended` says how it went away when nobody asked it to. */
interface Running {
  browser: Browser;
  page: Page;
  stopping: boolean;
  ended?: string;
}

async function start(profileDir: string): Promise<Running> {
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
  const running: Running = { browser, page, stopping: false };
  browser.process()?.once('exit', (code, signal) => {
    if (!running.stopping) running.ended = `firefox-esr exited (${signal ?? `code ${code}`})`;
  });
  browser.once('disconnected', () => {
    if (!running.stopping) running.ended ??= 'its WebDriver BiDi connection closed';
  });
  return running;
}

async function stop(running: Running): Promise<void> {
  const { browser } = running;
  running.stopping = true;
  const child = browser.process();
  await withTimeout(browser.close(), 20_000, 'firefox-esr did not close within 20 s').catch((error: unknown) => {
    child?.kill('SIGKILL');
    throw error;
  });
}

export async function launchFirefox({ profileDir }: LaunchOptions): Promise<Engine> {
  let current: Running | undefined = await start(profileDir);
  const page = () => {
    if (!current) throw new Error('Firefox is closed');
    // The browser went away under the test: waiting on the page again cannot help (a call in flight fails with Puppeteer's own words first).
    if (current.ended) throw new BrowserGone(current.ended);
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
      const running = current!;
      current = undefined;
      await stop(running);
      current = await start(profileDir);
    },
    async close() {
      const running = current;
      current = undefined;
      if (running) await stop(running);
    },
  };
}
