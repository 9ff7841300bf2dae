/**
 * Section 4, ingest: the server issue's benchmark (bench/load/ingest.ts), called here for its figures:
 * 240 KB uploads 50 at a time into the real server vs a bare node:http server that fsyncs to disk.
 */
import { runIngest } from '../load/ingest.js';
import type { Section } from '../report.js';
import type { BenchContext } from './context.js';

export async function ingestSection(ctx: BenchContext): Promise<Section> {
  const notes = ctx.smoke ? 20 : 1000;
  ctx.log(`ingest: ${notes} uploads per round into our server and the bare server`);
  const r = await runIngest({ notes, warmup: ctx.smoke ? 5 : 100 });
  const throughputRatio = r.ours.notesPerSecond / r.baseline.notesPerSecond;
  return {
    id: 'ingest',
    title: '4. Ingest',
    baseline: 'a bare node:http server that streams each body to a file, fsyncs and renames it, and answers 201 (no validation, no database).',
    rows: [
      {
        metric: 'notes per second',
        ours: r.ours.notesPerSecond,
        baseline: r.baseline.notesPerSecond,
        unit: '/s',
        digits: 0,
        aim: { text: '>= 0.8x baseline', met: throughputRatio >= 0.8 },
      },
      { metric: 'p50 latency', ours: r.ours.p50, baseline: r.baseline.p50, unit: 'ms', digits: 0 },
      { metric: 'p99 latency', ours: r.ours.p99, baseline: r.baseline.p99, unit: 'ms', digits: 0 },
      { metric: 'peak memory (RSS)', ours: r.ours.peakRssMb, baseline: r.baseline.peakRssMb, unit: 'MB', digits: 0 },
      {
        metric: 'peak memory over idle',
        ours: r.ours.peakRssMb - r.ours.idleRssMb,
        baseline: r.baseline.peakRssMb - r.baseline.idleRssMb,
        unit: 'MB',
        digits: 0,
      },
    ],
    chart: {
      kind: 'bars',
      title: `Ingest: ${r.notes} notes of ${r.noteBytes / 1024} KB, ${r.concurrency} at a time`,
      unit: 'notes/s, ms, MB',
      series: ['ours', 'bare node:http + fsync'],
      groups: [
        { label: 'notes per second', values: [r.ours.notesPerSecond, r.baseline.notesPerSecond] },
        { label: 'p99 latency (ms)', values: [r.ours.p99, r.baseline.p99] },
        { label: 'peak RSS (MB)', values: [r.ours.peakRssMb, r.baseline.peakRssMb] },
      ],
    },
    notes: [
      `From bench/ingest.ts (npm run bench:ingest): SQLite + disk with conversion off, best of ${r.rounds} alternating rounds after ${r.warmup} warm-up uploads; the 0.8x aim is that benchmark's own.`,
      'Both servers fsync every note; ours also validates, hashes, sniffs the container and commits a database row and a conversion job per note.',
    ],
  };
}
