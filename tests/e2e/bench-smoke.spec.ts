/**
 * A small run of `npm run bench` (BENCH_SMOKE=1: one Lighthouse run, two notes, tiny databases):
 * every section runs end to end against the production build and the report and charts come out
 * with numbers in them. The full benchmark is not part of npm test.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from '@playwright/test';

const SECTIONS = [
  'pages',
  'firstvisit',
  'audio',
  'delivery',
  'ingest',
  'growth',
  'raceday',
  'racemorning',
  'capacity',
  'overload',
  'twoservers',
  'push',
  'apiserver',
];

test('the benchmark smoke run writes a report and a chart per section, all with numbers', async () => {
  test.setTimeout(360_000);
  const out = await mkdtemp(path.join(os.tmpdir(), 'milenotes-bench-smoke-'));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'bench/run.ts'], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      env: { ...process.env, BENCH_SMOKE: '1', BENCH_OUT: out },
      maxBuffer: 16 * 1024 * 1024,
      timeout: 340_000,
    });
    expect(stdout).toContain('benchmark finished');

    const report = await readFile(path.join(out, 'report.md'), 'utf8');
    for (const id of SECTIONS) {
      expect(report).toContain(`](${id}.svg)`);
      const svg = await readFile(path.join(out, `${id}.svg`), 'utf8');
      expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
      expect(svg).toMatch(/<(rect|circle) [^>]*>/);
      expect(svg).not.toContain('NaN');
    }
    // Every table row carries a measured figure for ours: a number, never a dash.
    const rows = report.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| metric') && !l.startsWith('| ---'));
    expect(rows.length).toBeGreaterThanOrEqual(20);
    for (const row of rows) expect(row.split(' | ')[1], `${row}\n\nin the report:\n${report}`).toMatch(/^-?\d+(\.\d+)? ?/);
    for (const metric of [
      'LCP',
      'over HTTPS, HTTP/2, one bar: Record works',
      'bytes per second of speech',
      'notes delivered',
      'notes per second',
      'GET /api/entries/:id/notes',
      'CPU per minute of speech',
      'playable before the runner reaches the marker',
      'rate the second server adds',
      'played to push service p95, outside the 429 storm',
      'alerts within 3 min',
    ]) {
      expect(report).toContain(metric);
    }
  } finally {
    await rm(out, { recursive: true, force: true });
  }
});
