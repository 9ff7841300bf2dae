/**
 * Reads one of the server's Prometheus histograms from GET /metrics (METRICS=on) and answers a
 * quantile of what was observed between two readings, as Prometheus's histogram_quantile does:
 * linear within the bucket it falls in. For figures only the server can time (a held sync
 * answer from the moment a conversion woke it: bench/sections/racemorning.ts).
 */
export type Buckets = Array<{ le: number; count: number }>;

export async function readHistogram(base: string, name: string): Promise<Buckets> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\d+)$`, 'gm');
  return [...text.matchAll(line)].map((m) => ({ le: m[1] === '+Inf' ? Infinity : Number(m[1]), count: Number(m[2]) }));
}

/** The q-quantile (0..1) of the observations made between `before` and `after`, in the histogram's unit; NaN when there were none. */
export function quantileBetween(before: Buckets, after: Buckets, q: number): { value: number; count: number } {
  const counts = after.map((b, i) => ({ le: b.le, count: b.count - (before[i]?.count ?? 0) }));
  const total = counts.at(-1)?.count ?? 0;
  if (total === 0) return { value: NaN, count: 0 };
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const { le, count } of counts) {
    if (count >= rank) {
      if (!Number.isFinite(le)) return { value: lower, count: total };
      return { value: lower + ((le - lower) * (rank - below)) / Math.max(1, count - below), count: total };
    }
    lower = le;
    below = count;
  }
  return { value: lower, count: total };
}
