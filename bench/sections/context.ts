/** What every section gets from bench/run.ts: the served site, the server, the size of the run, and a progress line. */
import type { RunningServer } from '../../kit/server.js';
import type { BenchSite } from '../site.js';

export interface BenchContext {
  /** BENCH_SMOKE=1: the smallest sizes that still exercise every step (figures are not meaningful). */
  smoke: boolean;
  site: BenchSite;
  /** The production server (`npm start`'s code) serving the bench copy of the site on loopback. */
  server: RunningServer;
  log(message: string): void;
}

/** The samples' figures (../load/stats.ts), for the sections. */
export { median, percentile } from '../load/stats.js';
