/**
 * One first visit to a link as a friend on one bar makes it: a fresh Chromium profile, its CPU
 * slowed, every connection through the link model (the bad network's link mode, stand-ins/badNetwork/link.ts) to the TLS front
 * (../tlsFront.ts). The page reports, on its own clock, when the HTML's last byte arrived and when
 * the Record button first worked; the link says how many bytes had crossed it by then.
 */
import { chromium } from '@playwright/test';
import { chromiumArgs, chromiumPath } from '../../kit/browser/chromium.js';
import { type LinkShape, startBadNetwork } from '../../stand-ins/badNetwork/index.js';
import { FRONT_HOST, type TlsFront } from '../tlsFront.js';

export interface LinkVisit {
  /** ms from navigation start until the HTML's last byte arrived (the navigation's responseEnd). */
  htmlMs: number;
  /** ms from navigation start until a button reading exactly "Record" was on the page and enabled. */
  recordMs: number;
  /** Bytes that crossed the link, both ways, until Record worked: TLS and HTTP framing included, TCP/IP headers not. */
  bytesUntilRecord: number;
  /** The part of them that came down to the phone. */
  bytesDownUntilRecord: number;
  /** What the navigation spoke ('h2', 'http/1.1'). */
  protocol: string;
  /** Connections the browser opened through the link until Record worked. */
  connections: number;
}

/**
 * Runs in the page before its own scripts: the first moment the Record button exists and is not
 * disabled, on the page's clock (ms since navigation start) and as epoch ms for the link's count.
 * Watching mutations rather than polling keeps the measurement off the slowed main thread. A
 * string, not a function: the bench's compiler would add helpers to a function that the page lacks.
 */
const WATCH_FOR_RECORD = `(() => {
  const works = () => [...document.querySelectorAll('button')].some((b) => b.textContent.trim() === 'Record' && !b.disabled);
  const observer = new MutationObserver(() => {
    if (!works()) return;
    observer.disconnect();
    const at = performance.now();
    window.benchRecordWorks(at, performance.timeOrigin + at);
  });
  observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['disabled'] });
})();`;

/** A first visit to `path` through a fresh link of `shape` in front of the front's `port`; `expect` is the protocol the navigation must speak. */
export async function visitThroughLink(
  front: TlsFront,
  port: number,
  path: string,
  shape: LinkShape,
  options: { cpuSlowdown: number; expect: string },
): Promise<LinkVisit> {
  const link = await startBadNetwork({ host: '127.0.0.1', port }, { kind: 'link', shape });
  const browser = await chromium.launch({ executablePath: chromiumPath, args: [...chromiumArgs, ...front.chromiumArgs] });
  try {
    // Service workers blocked: the worker registers after load and its downloads are measured apart.
    const context = await browser.newContext({ serviceWorkers: 'block', viewport: { width: 390, height: 844 } });
    let recordWorks: (at: { ms: number; epochMs: number }) => void = () => undefined;
    const works = new Promise<{ ms: number; epochMs: number }>((resolve) => (recordWorks = resolve));
    await context.exposeFunction('benchRecordWorks', (ms: number, epochMs: number) => recordWorks({ ms, epochMs }));
    await context.addInitScript(WATCH_FOR_RECORD);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: options.cpuSlowdown });
    const url = `https://${FRONT_HOST}:${link.port}${path}`;
    await page.goto(url, { waitUntil: 'commit', timeout: 120_000 });
    let timer: NodeJS.Timeout | undefined;
    const record = await Promise.race([
      works,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`Record never worked within 120 s on ${url}`)), 120_000);
      }),
    ]).finally(() => clearTimeout(timer));
    const connections = link.connections();
    const bytes = link.bytesBy(record.epochMs);
    // The HTML may still be streaming when Record works: its end is read once it has one.
    const html = await page.waitForFunction(
      () => {
        const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
        return nav && nav.responseEnd > 0 ? { ms: nav.responseEnd, protocol: nav.nextHopProtocol } : false;
      },
      undefined,
      { timeout: 120_000 },
    );
    const { ms: htmlMs, protocol } = (await html.jsonValue()) as { ms: number; protocol: string };
    if (protocol !== options.expect) throw new Error(`the first visit to ${url} spoke ${protocol}, not ${options.expect}`);
    return {
      htmlMs,
      recordMs: record.ms,
      bytesUntilRecord: bytes.up + bytes.down,
      bytesDownUntilRecord: bytes.down,
      protocol,
      connections,
    };
  } finally {
    await browser.close();
    await link.close();
  }
}
