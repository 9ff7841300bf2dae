/**
 * npm run bench: every benchmark against the production build, each figure beside a baseline
 * measured in the same run. Prints the table and writes bench/report.md and one SVG per section.
 *   BENCH_SMOKE=1        tiny sizes, for the smoke test (figures are not meaningful)
 *   BENCH_SECTIONS=a,b   only these sections (pages, pagesab, firstvisit, audio, delivery, ingest, growth, raceday, racemorning, capacity, overload, twoservers,
 *                        push, apiserver)
 *   BENCH_OUT=dir        where the report goes (default bench/)
 *   BENCH_BASE=commit    what pagesab and firstvisit measure the first visit against (defaults 2122d22 and fab6086);
 *                        the smoke run leaves pagesab out and runs firstvisit without a base
 *   BENCH_AB_RUNS=n      first visits per side in pagesab and firstvisit (default 5; firstvisit at least 3)
 */
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startServer } from '../kit/server.js';
import { printTable, writeReport, type Section } from './report.js';
import { apiServerSection } from './sections/apiServer.js';
import { audioSection } from './sections/audio.js';
import { capacitySection } from './sections/capacity.js';
import type { BenchContext } from './sections/context.js';
import { deliverySection } from './sections/delivery.js';
import { firstVisitLinkSection } from './sections/firstVisitLink.js';
import { growthSection } from './sections/growth.js';
import { ingestSection } from './sections/ingest.js';
import { overloadSection } from './sections/overload.js';
import { pagesSection } from './sections/pages.js';
import { pagesAbSection } from './sections/pagesAB.js';
import { pushSection } from './sections/push.js';
import { racedaySection } from './sections/raceday.js';
import { racemorningSection } from './sections/racemorning/section.js';
import { twoServersSection } from './sections/twoServers.js';
import { ensureBuilt, prepareSite, root } from './site.js';

const SECTIONS: Record<string, (ctx: BenchContext) => Promise<Section>> = {
  pages: pagesSection,
  pagesab: pagesAbSection,
  firstvisit: firstVisitLinkSection,
  audio: audioSection,
  delivery: deliverySection,
  ingest: ingestSection,
  growth: growthSection,
  raceday: racedaySection,
  racemorning: racemorningSection,
  capacity: capacitySection,
  overload: overloadSection,
  twoservers: twoServersSection,
  push: pushSection,
  apiserver: apiServerSection,
};

/** Sections the smoke run starts at once. */
const SMOKE_POOL = 3;
/** The smoke run's sections, longest first; the rest come after, in the order asked. */
const SMOKE_LONGEST_FIRST = ['racemorning', 'delivery', 'overload', 'raceday', 'apiserver', 'pages', 'twoservers', 'push', 'firstvisit', 'audio', 'growth'];
const smokeRank = (id: string) => {
  const rank = SMOKE_LONGEST_FIRST.indexOf(id);
  return rank === -1 ? SMOKE_LONGEST_FIRST.length : rank;
};

/** Runs `work` on every id, at most `width` at a time, in the order given; answers each id's result. */
async function inPool<T>(ids: readonly string[], width: number, work: (id: string) => Promise<T>): Promise<Map<string, T>> {
  const results = new Map<string, T>();
  const queue = [...ids];
  const worker = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) results.set(id, await work(id));
  };
  await Promise.all(Array.from({ length: Math.min(width, ids.length) }, worker));
  return results;
}

const started = new Date();
const elapsed = () => ((Date.now() - started.getTime()) / 1000).toFixed(0).padStart(4);
const log = (message: string) => console.log(`[${elapsed()} s] ${message}`);

async function main(): Promise<void> {
  const smoke = process.env.BENCH_SMOKE === '1';
  // pagesab builds a second checkout from the repository's history: not in the smoke run unless named.
  const all = Object.keys(SECTIONS).filter((id) => !(smoke && id === 'pagesab'));
  const wanted = (process.env.BENCH_SECTIONS ?? all.join(','))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = wanted.filter((s) => !(s in SECTIONS));
  if (unknown.length) throw new Error(`unknown section(s) ${unknown.join(', ')}; choose from ${Object.keys(SECTIONS).join(', ')}`);
  const outDir = path.resolve(process.env.BENCH_OUT ?? path.join(root, 'bench'));

  // Vite sets NODE_ENV=production in this process; the servers we start must see what `npm start`
  // sees (a production NODE_ENV demands real Apple and session settings), so put it back after.
  const nodeEnv = process.env.NODE_ENV;
  await ensureBuilt(log);
  log('preparing the bench copy of the site (static baseline page, Workbox baseline worker)');
  const site = await prepareSite();
  if (nodeEnv === undefined) delete process.env.NODE_ENV;
  else process.env.NODE_ENV = nodeEnv;
  // Every simulated phone uploads from 127.0.0.1: the per-address limits would measure themselves.
  const server = await startServer({ DIST_DIR: site.dir, UPLOADS_PER_ADDRESS: '1000000', OPEN_UPLOADS_PER_ADDRESS: '1000' });
  log(`production server on ${server.url}${smoke ? ' (SMOKE run)' : ''}`);
  const sections: Section[] = [];
  try {
    const ctx: BenchContext = { smoke, site, server, log };
    if (smoke) {
      // The smoke run only proves every step works and writes numbers: a few sections side by side
      // keep it short; all at once starve each other on a small machine. Longest first, so the
      // run's length is near that of its longest section.
      const order = [...wanted].sort((a, b) => smokeRank(a) - smokeRank(b));
      const done = await inPool(order, SMOKE_POOL, async (id) => {
        const from = Date.now();
        const section = await SECTIONS[id]!(ctx);
        log(`section ${id} done in ${((Date.now() - from) / 1000).toFixed(0)} s`);
        return section;
      });
      sections.push(...wanted.map((id) => done.get(id)!));
    } else {
      for (const id of wanted) {
        log(`section ${id}`);
        const from = Date.now();
        sections.push(await SECTIONS[id]!(ctx));
        log(`section ${id} done in ${((Date.now() - from) / 1000).toFixed(0)} s`);
      }
    }
  } finally {
    await server.stop();
    await rm(site.dir, { recursive: true, force: true });
  }

  const seconds = (Date.now() - started.getTime()) / 1000;
  console.log(`\n${printTable(sections)}\n`);
  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model.trim() ?? 'cpu'}, Node ${process.version}`;
  const files = await writeReport(outDir, sections, { started, seconds, machine, smoke });
  const short = sections.flatMap((s) => s.rows.filter((r) => r.aim && !r.aim.met).map((r) => `${s.id}: ${r.metric}`));
  if (short.length) console.log(`short of an aim:\n  ${short.join('\n  ')}`);
  log(`wrote ${files.map((f) => path.relative(process.cwd(), f)).join(', ')}`);
  log(`benchmark finished in ${seconds.toFixed(0)} s`);
}

// Exit explicitly: keep-alive sockets of the HTTP clients would otherwise hold the process for a while.
main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`benchmark failed: ${error instanceof Error ? error.stack : String(error)}`);
    process.exit(1);
  },
);
