/**
 * Section "pagesab": the first visit to a link, this checkout against a base commit
 * (BENCH_BASE, default 2122d22, the main before the link's data came in its HTML) measured in the same run on the same
 * machine, runs alternated; the base is built and served by its own checkout (./baseCheckout.ts).
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { chromium } from '@playwright/test';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { chromiumArgs, chromiumPath } from '../../kit/browser/chromium.js';
import type { Row, Section } from '../report.js';
import { type Side, startBase } from './baseCheckout.js';
import { median, type BenchContext } from './context.js';
import { PROFILES, timeToRecord, workerFirstVisit } from './firstVisit.js';

/** The recorder's chunk as sent: its JS and CSS files' brotli sizes (what the pages section counts too). */
async function chunkKb(dist: string): Promise<number> {
  const files = (await readdir(path.join(dist, 'assets'))).filter((f) => /^recorder-.*\.js$|^recorderApp-.*\.css$/.test(f));
  let total = 0;
  for (const f of files) total += (await stat(path.join(dist, 'assets', `${f}.br`))).size;
  return total / 1024;
}

/** Bytes a first visit to url takes off the network (headers and bodies, as sent) until Record works, the worker kept out. */
async function firstVisitKb(url: string): Promise<number> {
  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
  try {
    const context = await browser.newContext({ serviceWorkers: 'block', viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const requests: import('@playwright/test').Request[] = [];
    page.on('request', (r) => void requests.push(r));
    await page.goto(url);
    await page.getByRole('button', { name: 'Record', exact: true }).waitFor();
    await page.waitForLoadState('networkidle');
    let bytes = 0;
    for (const r of requests) {
      const sizes = await r.sizes().catch(() => undefined);
      if (sizes) bytes += sizes.responseHeadersSize + sizes.responseBodySize;
    }
    return bytes / 1024;
  } finally {
    await browser.close();
  }
}

/**
 * Lighthouse's total blocking time with the mobile preset applied to the load itself (DevTools
 * throttling). A lost trace (NO_FCP, NO_NAVSTART: see section 1) is measured again, up to twice.
 */
async function throttledTbt(ctx: BenchContext, url: string, port: number): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const result = await lighthouse(
      url,
      { port, output: 'json', onlyCategories: ['performance'], logLevel: 'error' },
      { extends: 'lighthouse:default', settings: { throttlingMethod: 'devtools', onlyCategories: ['performance'] } },
    );
    const tbt = (result?.lhr.audits['total-blocking-time'] as { numericValue?: number } | undefined)?.numericValue;
    if (tbt !== undefined) return tbt;
    const why = result?.lhr.runtimeError?.message ?? 'no TBT';
    if (attempt >= 3) throw new Error(`Lighthouse measured no TBT for ${url}: ${why}`);
    ctx.log(`pagesab: Lighthouse: ${why}; running it again`);
  }
}

const ratio = (ours: number, base: number) => `${(ours / base).toFixed(2)}x`;

export async function pagesAbSection(ctx: BenchContext): Promise<Section> {
  const commit = process.env.BENCH_BASE ?? '2122d22';
  const runs = ctx.smoke ? 1 : Number(process.env.BENCH_AB_RUNS ?? 5);
  const ours: Side = { label: 'this checkout', dist: ctx.site.dir, server: ctx.server, token: await ctx.server.createLink('Bench') };
  const base = await startBase(commit, 'pagesab', ctx.log);
  const sides = [base.side, ours];
  const times = new Map<string, number[]>(sides.flatMap((s) => PROFILES.map((p) => [`${s.label}|${p.label}`, []] as [string, number[]])));
  const tbts = new Map<string, number[]>(sides.map((s) => [s.label, []]));
  const urlOf = (s: Side) => `${s.server.url}/r/${s.token}`;
  const worker: Record<string, { kb: number; requests: number }> = {};
  const bytes: Record<string, number> = {};
  // Read before the base's checkout is taken down.
  const [chunkA, chunkB] = [await chunkKb(base.side.dist), await chunkKb(ours.dist)];
  try {
    for (let round = 1; round <= runs; round++) {
      for (const profile of PROFILES) {
        for (const s of sides) {
          ctx.log(`pagesab: Record works, ${profile.label}, ${s.label}, run ${round}/${runs}`);
          const ms = await timeToRecord(urlOf(s), profile);
          times.get(`${s.label}|${profile.label}`)!.push(ms);
          ctx.log(`pagesab: ${Math.round(ms)} ms`);
        }
      }
    }
    if (!ctx.smoke) {
      const chrome = await chromeLauncher.launch({ chromePath: chromiumPath, chromeFlags: ['--headless=new', ...chromiumArgs] });
      try {
        for (let round = 1; round <= Math.min(runs, 3); round++) {
          for (const s of sides) {
            ctx.log(`pagesab: /r/ TBT, load throttled, ${s.label}, run ${round}`);
            const tbt = await throttledTbt(ctx, urlOf(s), chrome.port);
            tbts.get(s.label)!.push(tbt);
            ctx.log(`pagesab: TBT ${Math.round(tbt)} ms`);
          }
        }
      } finally {
        chrome.kill();
      }
    }
    for (const s of sides) {
      bytes[s.label] = median([await firstVisitKb(urlOf(s)), await firstVisitKb(urlOf(s)), await firstVisitKb(urlOf(s))]);
      const fetched = await workerFirstVisit(urlOf(s));
      worker[s.label] = fetched;
    }
  } finally {
    await base.stop();
  }

  const rows: Row[] = [];
  const aims: Record<string, number> = { [PROFILES[0]!.label]: 0.9, [PROFILES[1]!.label]: 0.85 };
  for (const profile of PROFILES) {
    const a = median(times.get(`${commit}|${profile.label}`)!);
    const b = median(times.get(`${ours.label}|${profile.label}`)!);
    rows.push({
      metric: `/r/ first visit: Record works after (${profile.label}), A/B`,
      ours: b,
      baseline: a,
      unit: 'ms',
      digits: 0,
      aim: { text: `<= ${aims[profile.label]}x ${commit} (${ratio(b, a)})`, met: b <= aims[profile.label]! * a },
    });
  }
  const [bytesA, bytesB] = [bytes[commit]!, bytes[ours.label]!];
  rows.push({
    metric: '/r/ first visit: bytes on the wire until Record works and the network is quiet, A/B',
    ours: bytesB,
    baseline: bytesA,
    unit: 'KB',
    aim: { text: `<= 92 KB (${ratio(bytesB, bytesA)})`, met: bytesB <= 92 },
  });
  rows.push({
    metric: '/r/ chunk: recorder JS + CSS (brotli), A/B',
    ours: chunkB,
    baseline: chunkA,
    unit: 'KB',
    aim: { text: `<= 18 KB (${ratio(chunkB, chunkA)})`, met: chunkB <= 18 },
  });
  if (!ctx.smoke) {
    const [tbtA, tbtB] = [median(tbts.get(commit)!), median(tbts.get(ours.label)!)];
    rows.push({
      metric: '/r/ TBT, load throttled (DevTools), A/B',
      ours: tbtB,
      baseline: tbtA,
      unit: 'ms',
      digits: 0,
      aim: { text: `no worse than ${commit} (${ratio(tbtB, tbtA)})`, met: tbtB <= tbtA },
    });
  }
  rows.push({
    metric: `/r/ first visit: service worker's network bytes, A/B (${worker[commit]!.requests} -> ${worker[ours.label]!.requests} requests)`,
    ours: worker[ours.label]!.kb,
    baseline: worker[commit]!.kb,
    unit: 'KB',
  });
  return {
    id: 'pagesab',
    title: `1b. The first visit to a link against ${commit} (same run, same machine)`,
    baseline: `commit ${commit}: a git archive of it built with its own build and served by its own server, measured alternately with this checkout.`,
    rows,
    chart: {
      kind: 'bars',
      title: `Record works after, median of ${runs}: ${commit} and this checkout`,
      unit: 'ms',
      series: sides.map((s) => s.label),
      groups: PROFILES.map((p) => ({ label: p.label, values: sides.map((s) => median(times.get(`${s.label}|${p.label}`)!)) })),
    },
    notes: [
      `Median of ${runs} runs per side and profile, sides alternated within each round; "Record works after" as in section 1 (Playwright, DevTools throttling, the worker blocked).`,
      "The base commit's checkout (BENCH_BASE) shares this checkout's node_modules; its dist/ is built by its own scripts/build.mjs.",
    ],
  };
}
