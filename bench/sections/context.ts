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

export const median = (values: number[]): number => {
  const s = [...values].sort((a, b) => a - b);
  if (!s.length) return NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

export const percentile = (values: number[], p: number): number => {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN;
};
