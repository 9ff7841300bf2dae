/**
 * Section 1, pages: Lighthouse 12 (mobile preset, Debian Chromium), median of 3 runs, for each
 * public page against a static no-JavaScript copy of the home page on the same server; plus the
 * gzip sizes of what the first paint of / needs, the JavaScript of /, and the /r/ chunk.
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { chromiumArgs, chromiumPath } from '../../tests/e2e/support/chromium.js';
import type { Row, Section } from '../report.js';
import { median, type BenchContext } from './context.js';

interface PageRun {
  score: number;
  lcp: number;
  tbt: number;
  cls: number;
  bytes: number;
  /** Same-origin scripts the page loaded, as paths. */
  scripts: string[];
}

type Audits = Record<string, { numericValue?: number; details?: { items?: Array<{ url?: string; resourceType?: string }> } }>;

async function audit(url: string, port: number): Promise<PageRun> {
  const result = await lighthouse(url, { port, output: 'json', onlyCategories: ['performance'], logLevel: 'error' });
  if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
  const { lhr } = result;
  if (lhr.runtimeError) throw new Error(`Lighthouse could not measure ${url}: ${lhr.runtimeError.message}`);
  const audits = lhr.audits as unknown as Audits;
  const value = (id: string) => audits[id]?.numericValue ?? NaN;
  const origin = new URL(url).origin;
  const scripts = (audits['network-requests']?.details?.items ?? [])
    .filter((i) => i.resourceType === 'Script' && i.url?.startsWith(origin))
    .map((i) => new URL(i.url!).pathname);
  return {
    score: (lhr.categories.performance?.score ?? NaN) * 100,
    lcp: value('largest-contentful-paint'),
    tbt: value('total-blocking-time'),
    cls: value('cumulative-layout-shift'),
    bytes: value('total-byte-weight') / 1024,
    scripts,
  };
}

/** Lighthouse now and then loses a trace (NO_NAVSTART, NO_FCP): such a run is repeated, up to twice. */
async function auditWithRetry(ctx: BenchContext, url: string, port: number): Promise<PageRun> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await audit(url, port);
    } catch (error) {
      if (attempt >= 3) throw error;
      ctx.log(`pages: ${(error as Error).message}; running it again`);
    }
  }
}

const gzipKb = async (dir: string, files: string[]) => {
  let total = 0;
  for (const f of new Set(files)) total += gzipSync(await readFile(path.join(dir, f)), { level: 9 }).length;
  return total / 1024;
};

export async function pagesSection(ctx: BenchContext): Promise<Section> {
  const token = await ctx.server.createLink('Bench');
  const pages = ctx.smoke
    ? [{ label: '/', path: '/' }]
    : [{ label: '/', path: '/' }, { label: '/terms', path: '/terms' }, { label: '/privacy', path: '/privacy' }, { label: '/r/<token>', path: `/r/${token}` }];
  const targets = [...pages, { label: 'baseline', path: '/baseline.html' }];
  const runs = ctx.smoke ? 1 : 3;
  const results = new Map<string, PageRun[]>(targets.map((t) => [t.label, []]));

  const chrome = await chromeLauncher.launch({ chromePath: chromiumPath, chromeFlags: ['--headless=new', ...chromiumArgs] });
  try {
    // Alternate the pages within each round, so drift on a noisy machine hits all of them alike.
    for (let round = 1; round <= runs; round++) {
      for (const t of targets) {
        ctx.log(`pages: Lighthouse round ${round}/${runs} ${t.label}`);
        results.get(t.label)!.push(await auditWithRetry(ctx, ctx.server.url + t.path, chrome.port));
      }
    }
  } finally {
    chrome.kill();
  }

  const med = (label: string, key: keyof Omit<PageRun, 'scripts'>) => median(results.get(label)!.map((r) => r[key]));
  const base = (key: keyof Omit<PageRun, 'scripts'>) => med('baseline', key);
  const rows: Row[] = [];
  for (const p of pages) {
    const lcp = med(p.label, 'lcp');
    rows.push(
      { metric: `${p.label} performance score`, ours: med(p.label, 'score'), baseline: base('score'), unit: '', digits: 0 },
      { metric: `${p.label} LCP`, ours: lcp, baseline: base('lcp'), unit: 'ms', digits: 0, aim: { text: '<= 1.1x baseline', met: lcp <= 1.1 * base('lcp') } },
      { metric: `${p.label} TBT`, ours: med(p.label, 'tbt'), baseline: base('tbt'), unit: 'ms', digits: 0 },
      { metric: `${p.label} CLS`, ours: med(p.label, 'cls'), baseline: base('cls'), unit: '', digits: 3 },
      { metric: `${p.label} bytes`, ours: med(p.label, 'bytes'), baseline: base('bytes'), unit: 'KB' },
    );
  }

  const dir = ctx.site.dir;
  const { scripts, styles } = ctx.site.homeAssets;
  const firstPaint = await gzipKb(dir, ['index.html', ...styles]);
  const firstPaintBase = await gzipKb(dir, ['baseline.html', ...styles]);
  const homeScripts = [...scripts, ...results.get('/')![0]!.scripts];
  const homeJs = await gzipKb(dir, homeScripts);
  const assets = await readdir(path.join(dir, 'assets'));
  const chunk = assets.filter((f) => /^recorder-.*\.js$|^recorderApp-.*\.css$/.test(f)).map((f) => `assets/${f}`);
  if (!chunk.some((f) => f.endsWith('.js'))) throw new Error('no assets/recorder-*.js in the build: the /r/ chunk was not found');
  const chunkKb = await gzipKb(dir, chunk);
  rows.push(
    { metric: 'HTML + CSS for first paint of / (gzip)', ours: firstPaint, baseline: firstPaintBase, unit: 'KB', aim: { text: '<= 14 KB', met: firstPaint <= 14 } },
    { metric: 'JavaScript for / (gzip)', ours: homeJs, baseline: 0, unit: 'KB' },
    { metric: '/r/ chunk: recorder JS + CSS (gzip)', ours: chunkKb, baseline: null, unit: 'KB', aim: { text: '<= 25 KB', met: chunkKb <= 25 } },
  );
  const rRuns = results.get('/r/<token>');
  if (rRuns) {
    const rJs = await gzipKb(dir, rRuns[0]!.scripts);
    rows.push({ metric: 'all JavaScript /r/ loads, React included (gzip)', ours: rJs, baseline: 0, unit: 'KB' });
  }

  const baseLcp = base('lcp');
  return {
    id: 'pages',
    title: '1. Pages (Lighthouse 12, mobile preset)',
    baseline: 'the rendered home page copied to /baseline.html with every script and module preload removed (same CSS and images), served by the same server.',
    rows,
    chart: {
      kind: 'bars',
      title: `LCP and TBT, median of ${runs} Lighthouse mobile runs`,
      unit: 'ms',
      series: ['LCP', 'TBT'],
      groups: targets.map((t) => ({ label: t.label, values: [med(t.label, 'lcp'), med(t.label, 'tbt')] })),
      line: { value: 1.1 * baseLcp, label: 'aim: LCP 1.1x baseline' },
    },
    notes: [
      `Median of ${runs} runs per page, pages alternated within each round; simulated mobile throttling (Lighthouse's default), one headless Debian Chromium.`,
      `Sizes are gzip -9 of the files on disk (the server itself sends them uncompressed; Lighthouse's "bytes" are what it transferred). Scripts of /: ${[...new Set(homeScripts)].join(', ') || 'none'}.`,
      'The LCP aim is applied to every page against the home page copy: the legal pages and the recorder shell are lighter than the home page, so they should be at least as fast.',
    ],
  };
}
