/**
 * What race morning measures: the server's memory with its converter's, sampled through the phases;
 * the server's own figures (/metrics) read at each phase's edges; and, from those and the clients'
 * samples, the figures the report shows, under load against no load.
 */
import { quantileBetween } from '../../load/histogram.js';
import { bucketsIn, readMetrics, serverLoopLag } from '../../load/serverMetrics.js';
import { childRunning, rssMB } from '../../load/procStat.js';
import { percentile } from '../context.js';
import type { DrainPhase, QuietPhase, RaceMorning, WindowPhase } from './scenario.js';

/** A process's resident memory (VmRSS), in MB; 0 for none or one gone. */
async function rssOrZero(pid: number | undefined): Promise<number> {
  const mb = await rssMB(pid);
  return Number.isNaN(mb) ? 0 : mb;
}

/** The server's memory and its converter's, in MB (the converter looked for again once it is gone). */
function memoryOf(server: () => number | undefined) {
  let converter: number | undefined;
  return async () => {
    const pid = server();
    if (pid === undefined) return { server: NaN, converter: NaN };
    let converterMB = await rssOrZero(converter);
    if (converterMB === 0) {
      converter = await childRunning(pid, 'converter-process');
      converterMB = await rssOrZero(converter);
    }
    return { server: await rssOrZero(pid), converter: converterMB };
  };
}

/** Peaks of the server's memory with its converter's (and of the converter's alone), per phase, sampled every 250 ms. */
export class MemorySampler {
  readonly rss = { idle: { total: NaN, converter: NaN }, unloaded: { total: 0, converter: 0 }, loaded: { total: 0, converter: 0 } };
  phase: 'unloaded' | 'setup' | 'loaded' | 'done' = 'unloaded';
  private readonly memory: ReturnType<typeof memoryOf>;
  private readonly sampler: NodeJS.Timeout;

  constructor(serverPid: () => number | undefined) {
    this.memory = memoryOf(serverPid);
    this.sampler = setInterval(
      () =>
        void this.memory().then((mb) => {
          if (this.phase === 'done') return;
          const peak = this.rss[this.phase === 'unloaded' ? 'unloaded' : 'loaded'];
          peak.total = Math.max(peak.total, mb.server + mb.converter);
          peak.converter = Math.max(peak.converter, mb.converter);
        }),
      250,
    );
  }

  /** The memory now, kept as the idle figure. */
  async idle(): Promise<void> {
    const mb = await this.memory();
    this.rss.idle = { total: mb.server + mb.converter, converter: mb.converter };
  }

  stop(): void {
    clearInterval(this.sampler);
  }
}

/**
 * The server's own figures, read at each phase's edges: its timing of a held answer from the
 * change that woke it (server/sync/woken-mark.ts), of each route, and its event-loop lag.
 */
export function metricsOf(url: string) {
  const routeIn = (text: string, method: string, route: string, status: string) =>
    bucketsIn(text, 'milenotes_http_request_duration_seconds', (l) => l.method === method && l.route === route && l.status_code === status);
  return {
    read: () => readMetrics(url),
    wakesIn: (text: string) => bucketsIn(text, 'milenotes_sync_wake_seconds'),
    uploadsIn: (text: string) => routeIn(text, 'PUT', '/api/r/:token/notes/:noteId', '201'),
    signInsIn: (text: string) => routeIn(text, 'POST', '/api/auth/apple', '200'),
  };
}

/** The figures of one race morning: under load against no load, in this run. */
export function measureRaceMorning(run: RaceMorning, quiet: QuietPhase, window: WindowPhase, drain: DrainPhase) {
  const { samples, deliveries, errors, metrics } = run;
  const p95 = (values: number[]) => percentile(values, 95);
  const held = { unloaded: deliveries.samples('unloaded', drain.drainedAt), loaded: deliveries.samples('loaded', drain.drainedAt) };
  const between = (from: string, to: string, of: (text: string) => ReturnType<typeof bucketsIn>) => quantileBetween(of(from), of(to), 0.95);
  const wake = { unloaded: between(quiet.before, quiet.after, metrics.wakesIn), loaded: between(window.atStart, drain.atEnd, metrics.wakesIn) };
  // The server's own p95 (from its buckets): what the bench's figures are beside what it spent in the bench's process.
  const serverTimed = {
    upload: { unloaded: between(quiet.before, quiet.after, metrics.uploadsIn), loaded: between(window.atStart, drain.atEnd, metrics.uploadsIn) },
    signIn: { unloaded: between(quiet.before, quiet.after, metrics.signInsIn), loaded: between(window.atStart, drain.atEnd, metrics.signInsIn) },
  };
  const serverLoop = { unloaded: serverLoopLag(quiet.after), loaded: serverLoopLag(window.atEnd) };
  const benchLoop = { unloaded: quiet.benchLoop, loaded: window.benchLoop };
  const figures = [
    { metric: 'note upload (PUT → 201), p95', ours: p95(samples.loaded.upload), baseline: p95(samples.unloaded.upload) },
    { metric: 'held answer after a conversion woke it, p95', ours: wake.loaded.value * 1000, baseline: wake.unloaded.value * 1000 },
    { metric: 'sign-in (POST /api/auth/apple), p95', ours: p95(samples.loaded.signIn), baseline: p95(samples.unloaded.signIn) },
  ];
  const heldP95 = { loaded: p95(held.loaded), unloaded: p95(held.unloaded) };
  const errorCount = { loaded: errors.total('loaded') + errors.total('setup'), unloaded: errors.total('unloaded') };
  return { held, heldP95, wake, serverTimed, serverLoop, benchLoop, figures, errorCount, rss: run.memory.rss };
}
export type RaceMorningFigures = ReturnType<typeof measureRaceMorning>;
