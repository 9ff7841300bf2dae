/**
 * The benchmark's output: one table (ours, baseline, ratio, aim) printed and written to
 * report.md, and one SVG chart per section beside it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { renderChart, type Chart } from './svg.js';

export interface Row {
  metric: string;
  ours: number | null;
  baseline: number | null;
  unit: string;
  /** Digits after the point when printing. */
  digits?: number;
  /** What we aim for, in words, and whether this run met it; absent when the row is context only. */
  aim?: { text: string; met: boolean };
}

export interface Section {
  id: string;
  title: string;
  /** What the baseline is, in one line. */
  baseline: string;
  rows: Row[];
  chart: Chart;
  /** Findings a reader needs: shortfalls and why, how a figure was taken. */
  notes: string[];
}

const fmt = (v: number | null, digits = 1) => (v === null || !Number.isFinite(v) ? '—' : v.toFixed(digits));

export function ratioOf(row: Row): number | null {
  if (row.ours === null || row.baseline === null || row.baseline === 0) return null;
  return row.ours / row.baseline;
}

function cells(row: Row): string[] {
  const d = row.digits ?? 1;
  return [
    row.metric,
    `${fmt(row.ours, d)} ${row.unit}`.trim(),
    `${fmt(row.baseline, d)} ${row.baseline === null ? '' : row.unit}`.trim(),
    ratioOf(row) === null ? '—' : `${fmt(ratioOf(row), 2)}x`,
    row.aim?.text ?? '—',
    row.aim ? (row.aim.met ? 'pass' : 'SHORT') : '—',
  ];
}

const HEADER = ['metric', 'ours', 'baseline', 'ratio', 'aim', 'result'];

export function printTable(sections: Section[]): string {
  const lines: string[][] = [];
  for (const s of sections) for (const r of s.rows) lines.push([`${s.id}: ${r.metric}`, ...cells(r).slice(1)]);
  const widths = HEADER.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const line = (l: string[]) => l.map((c, i) => c.padEnd(widths[i]!)).join(' | ');
  return [line(HEADER), widths.map((w) => '-'.repeat(w)).join('-|-'), ...lines.map(line)].join('\n');
}

export function markdown(sections: Section[], meta: { started: Date; seconds: number; machine: string; smoke: boolean }): string {
  const out = [
    '# MileNotes benchmark report',
    '',
    `Run ${meta.started.toISOString()} in ${meta.seconds.toFixed(0)} s on ${meta.machine}${meta.smoke ? ' (SMOKE run: tiny sizes, figures not meaningful)' : ''}.`,
    'Every ratio is ours / the baseline measured in the same run.',
    '',
  ];
  for (const s of sections) {
    out.push(`## ${s.title}`, '', `Baseline: ${s.baseline}`, '', `| ${HEADER.join(' | ')} |`, `|${HEADER.map(() => ' --- ').join('|')}|`);
    for (const r of s.rows)
      out.push(
        `| ${cells(r)
          .map((c) => c.replace(/\|/g, '\\|'))
          .join(' | ')} |`,
      );
    out.push('', `![${s.title}](${s.id}.svg)`, '');
    for (const n of s.notes) out.push(`- ${n}`);
    out.push('');
  }
  const short = sections.flatMap((s) => s.rows.filter((r) => r.aim && !r.aim.met).map((r) => `${s.id}: ${r.metric}`));
  out.push('## Short of an aim', '', short.length ? short.map((s) => `- ${s}`).join('\n') : 'None.', '');
  return out.join('\n');
}

export async function writeReport(dir: string, sections: Section[], meta: Parameters<typeof markdown>[1]): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files = [path.join(dir, 'report.md')];
  await writeFile(files[0]!, markdown(sections, meta));
  for (const s of sections) {
    const file = path.join(dir, `${s.id}.svg`);
    await writeFile(file, renderChart(s.chart));
    files.push(file);
  }
  return files;
}
