/**
 * The API-server bench's before/after rows: each figure of this checkout's server against the
 * same figure of BENCH_BASE's, run under the same load in the same run (./apiServer.ts).
 */
import type { Row } from '../report.js';
import { LOOP_P99_LIMIT_MS, SYNC_P95_LIMIT_MS, type ApiServerFigures } from './apiServerFigures.js';

export function apiServerAbRows(after: ApiServerFigures, before: ApiServerFigures): Row[] {
  const row = (metric: string, of: (f: ApiServerFigures) => number, unit: string, digits: number): Row => ({
    metric: `before/after: ${metric}`,
    ours: of(after),
    baseline: of(before),
    unit,
    digits,
  });
  // A step whose server answered its apps too little spent too little CPU to price an app-minute: said in its rows.
  const starved = !after.last.reachedRates || !before.last.reachedRates;
  const largest = `${after.last.apps} apps${starved ? ' (SHORT OF ITS RATES on a side: not a price)' : ''}`;
  return [
    row(`server CPU per app-minute, ${largest}`, (f) => f.last.cpuMsPerAppMinute, 'ms', 2),
    row('server CPU per app-minute, marginal (slope over the steps)', (f) => f.marginalMsPerAppMinute, 'ms', 2),
    row("apps per core, by the server's own CPU at the largest step within both limits", (f) => f.appsPerCore, '', 0),
    row('one positions batch: server CPU', (f) => f.batch.cpuMs, 'ms', 2),
    row('one positions batch: PostgreSQL CPU', (f) => f.batch.pgCpuMs, 'ms', 2),
    row('one positions batch: statements (BEGIN and COMMIT included)', (f) => f.batch.statementCalls, '', 1),
    row('one held sync answer and the ask after it: server CPU', (f) => f.answer.cpuMs, 'ms', 2),
    row('one held sync answer: statements', (f) => f.answer.statementCalls, '', 1),
    {
      ...row(`sync answer p95, note converted → app told, ${largest}`, (f) => f.last.syncP95, 'ms', 0),
      aim: { text: `< ${SYNC_P95_LIMIT_MS / 1000} s`, met: after.last.syncP95 < SYNC_P95_LIMIT_MS },
    },
    {
      ...row(`server event-loop p99, ${largest}`, (f) => f.last.loopP99, 'ms', 0),
      aim: { text: `< ${LOOP_P99_LIMIT_MS} ms`, met: after.last.loopP99 < LOOP_P99_LIMIT_MS },
    },
    row(`PostgreSQL transactions committed a second, ${largest}`, (f) => f.last.commitsPerSecond, '/s', 0),
    row(`WAL written a second, ${largest}`, (f) => f.last.walBytesPerSecond / 1024, 'KB/s', 0),
    row(`share of the server's CPU in garbage-collection pauses, ${largest}`, (f) => f.last.result.window.gcShare * 100, '%', 1),
    row('server memory per held app (RSS slope over the steps)', (f) => f.rssKBPerApp, 'KB', 1),
    row(`CPU of other people's work on the machine, ${largest}`, (f) => f.last.result.window.cores.others, 'cores', 2),
  ];
}

/** The rows as a plain table for the log: before, after, after/before. */
export function abTable(rows: Row[]): string {
  const fmt = (v: number | null, digits = 1) => (v === null || !Number.isFinite(v) ? '—' : v.toFixed(digits));
  const lines = rows.map((r) => [
    r.metric.replace(/^before\/after: /, ''),
    `${fmt(r.baseline, r.digits)} ${r.unit}`.trim(),
    `${fmt(r.ours, r.digits)} ${r.unit}`.trim(),
    r.ours !== null && r.baseline ? `${(r.ours / r.baseline).toFixed(2)}x` : '—',
  ]);
  const all = [['figure', 'before', 'after', 'after/before'], ...lines];
  const widths = all[0]!.map((_, i) => Math.max(...all.map((l) => l[i]!.length)));
  return all.map((l) => l.map((c, i) => c.padEnd(widths[i]!)).join(' | ')).join('\n');
}
