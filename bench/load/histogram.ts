/**
 * A quantile of what one of the server's Prometheus histograms observed between two readings of
 * GET /metrics (read by ./serverMetrics.ts), as Prometheus's histogram_quantile does: linear
 * within the bucket it falls in. For figures only the server can time (a held sync answer from the
 * moment a conversion woke it, a route's own time: bench/sections/racemorning/).
 */
export type Buckets = Array<{ le: number; count: number }>;

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
