/**
 * The first visit to a link, in a fresh browser profile each run (Playwright, Debian Chromium):
 * how long until the Record button works under two throttled profiles, and what the service
 * worker fetches over the network while it installs.
 */
import { chromium, type BrowserContext, type Request } from '@playwright/test';
import { chromiumArgs, chromiumPath } from '../../kit/browser/chromium.js';

export interface Profile {
  label: string;
  /** Added to each request's response start, as DevTools throttling does. */
  latencyMs: number;
  downKbps: number;
  upKbps: number;
  cpuSlowdown: number;
}

export const PROFILES: Profile[] = [
  // Lighthouse's mobile preset (mobileSlow4G) in its DevTools form: 150 ms RTT x 3.75, 1.6 Mbit/s x 0.9.
  { label: 'Lighthouse mobile', latencyMs: 562.5, downKbps: 1474.56, upKbps: 675, cpuSlowdown: 4 },
  // One bar at the venue.
  { label: 'slow venue, 400 kbit/s and 400 ms', latencyMs: 400, downKbps: 400, upKbps: 400, cpuSlowdown: 4 },
];

const withBrowser = async <T>(use: (context: BrowserContext) => Promise<T>, serviceWorkers: 'allow' | 'block'): Promise<T> => {
  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
  try {
    return await use(await browser.newContext({ serviceWorkers, viewport: { width: 390, height: 844 } }));
  } finally {
    await browser.close();
  }
};

/**
 * Milliseconds from navigation start until the Record button is on screen and enabled (React
 * renders it with its handler, so it works from that moment). The worker is kept out: it
 * registers after load and its own fetches are counted apart (workerFirstVisit).
 */
export function timeToRecord(url: string, profile: Profile): Promise<number> {
  return withBrowser(async (context) => {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: profile.latencyMs,
      downloadThroughput: (profile.downKbps * 1024) / 8,
      uploadThroughput: (profile.upKbps * 1024) / 8,
    });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: profile.cpuSlowdown });
    await page.goto(url, { waitUntil: 'commit' });
    const handle = await page.waitForFunction(
      () => {
        const button = [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'Record');
        return button && !button.disabled ? performance.now() : false;
      },
      undefined,
      { timeout: 120_000, polling: 50 },
    );
    return (await handle.jsonValue()) as number;
  }, 'block');
}

export interface WorkerFetches {
  requests: number;
  /** Bytes the worker's requests took off the network (headers and bodies as sent, compressed). */
  kb: number;
  /** Bytes of worker requests the browser answered from its HTTP cache (the page had just loaded them). */
  fromCacheKb: number;
}

/** What the service worker fetches while it installs on a first visit to url, until it controls the page. */
export function workerFirstVisit(url: string): Promise<WorkerFetches> {
  return withBrowser(async (context) => {
    const worker: Request[] = [];
    context.on('request', (r) => void (r.serviceWorker() && worker.push(r)));
    const page = await context.newPage();
    await page.goto(url);
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    let network = 0;
    let cached = 0;
    for (const request of worker) {
      const response = await request.response();
      if (!response) continue;
      const sizes = await request.sizes();
      const length = Number(response.headers()['content-length'] ?? 0);
      // Chromium reports an HTTP-cache answer with no header bytes (or body = -headers), and the
      // worker's own script with a body of 0: its Content-Length is what crossed the network.
      const fromNetwork = sizes.responseHeadersSize > 0 && sizes.responseBodySize + sizes.responseHeadersSize > 0;
      if (fromNetwork) network += sizes.responseHeadersSize + Math.max(sizes.responseBodySize, length);
      else cached += length;
    }
    return { requests: worker.length, kb: network / 1024, fromCacheKb: cached / 1024 };
  }, 'allow');
}
