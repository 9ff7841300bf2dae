/**
 * One reading of the server's GET /metrics (METRICS=on, prom-client's text format) and the figures
 * the race-morning bench takes from it: histograms by their labels (the server's own timing of a
 * route) and gauges (its event-loop lag). prom-client resets its event-loop-lag histogram at every
 * reading, so the lag figures of a reading cover the time since the reading before.
 */
import type { Buckets } from './histogram.js';

export const readMetrics = async (base: string): Promise<string> => (await fetch(`${base}/metrics`)).text();

type Labels = Record<string, string>;

function series(text: string, name: string): Array<{ labels: Labels; value: number }> {
  const line = new RegExp(`^${name}(?:\\{([^}]*)\\})? (\\S+)$`, 'gm');
  return [...text.matchAll(line)].map((m) => ({
    labels: Object.fromEntries([...(m[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1]!, l[2]!])),
    value: Number(m[2]),
  }));
}

/** A histogram's cumulative buckets, summed over the series whose labels `keep` accepts (all of them by default). */
export function bucketsIn(text: string, name: string, keep: (labels: Labels) => boolean = () => true): Buckets {
  const byLe = new Map<number, number>();
  for (const { labels, value } of series(text, `${name}_bucket`)) {
    if (!keep(labels)) continue;
    const le = labels.le === '+Inf' ? Infinity : Number(labels.le);
    byLe.set(le, (byLe.get(le) ?? 0) + value);
  }
  return [...byLe].sort((a, b) => a[0] - b[0]).map(([le, count]) => ({ le, count }));
}

/** A gauge's value (its first series), NaN when the server does not expose it. */
export const gaugeIn = (text: string, name: string): number => series(text, name)[0]?.value ?? NaN;

/** The server's event-loop lag since the reading before (prom-client's defaults), in ms. */
export const serverLoopLag = (text: string) => ({
  p50: gaugeIn(text, 'nodejs_eventloop_lag_p50_seconds') * 1000,
  p99: gaugeIn(text, 'nodejs_eventloop_lag_p99_seconds') * 1000,
  max: gaugeIn(text, 'nodejs_eventloop_lag_max_seconds') * 1000,
});
