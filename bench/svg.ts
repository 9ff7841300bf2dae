/** Hand-written SVG charts for the report: grouped bars or lines, with an optional aim line. */

export interface BarChart {
  kind: 'bars';
  title: string;
  unit: string;
  /** Series names, in the order each group lists its values (e.g. ours, baseline). */
  series: string[];
  groups: Array<{ label: string; values: Array<number | null> }>;
  /** A horizontal reference, e.g. the aim. */
  line?: { value: number; label: string };
}

export interface LineChart {
  kind: 'lines';
  title: string;
  unit: string;
  xLabels: string[];
  series: Array<{ label: string; values: Array<number | null> }>;
  line?: { value: number; label: string };
}

export type Chart = BarChart | LineChart;

const COLORS = ['#0f7c7e', '#9aa5b1', '#d97706', '#7c3aed', '#dc2626'];
const W = 760;
const H = 360;
const M = { top: 48, right: 20, bottom: 70, left: 64 };
const plotW = W - M.left - M.right;
const plotH = H - M.top - M.bottom;

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A round top for the axis: 1, 2 or 5 times a power of ten. */
function niceMax(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  return ([1, 2, 5, 10].find((m) => m * p >= v) ?? 10) * p;
}

const short = (v: number) => (Math.abs(v) >= 1000 ? `${+(v / 1000).toFixed(1)}k` : `${+v.toPrecision(3)}`);

function frame(chart: Chart, max: number, body: string[]): string {
  const y = (v: number) => M.top + plotH - (v / max) * plotH;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${W / 2}" y="22" text-anchor="middle" font-size="15" font-weight="600">${esc(chart.title)}</text>`,
    `<text x="14" y="${M.top + plotH / 2}" transform="rotate(-90 14 ${M.top + plotH / 2})" text-anchor="middle" fill="#444">${esc(chart.unit)}</text>`,
  ];
  for (let i = 0; i <= 4; i++) {
    const v = (max * i) / 4;
    parts.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${y(v)}" y2="${y(v)}" stroke="#e5e7eb"/>`);
    parts.push(`<text x="${M.left - 6}" y="${y(v) + 4}" text-anchor="end" fill="#555">${short(v)}</text>`);
  }
  parts.push(...body);
  if (chart.line) {
    parts.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${y(chart.line.value)}" y2="${y(chart.line.value)}" stroke="#dc2626" stroke-dasharray="6 4"/>`);
    parts.push(`<text x="${W - M.right}" y="${y(chart.line.value) - 4}" text-anchor="end" fill="#dc2626">${esc(chart.line.label)}</text>`);
  }
  const names = chart.kind === 'bars' ? chart.series : chart.series.map((s) => s.label);
  names.forEach((name, i) => {
    const x = M.left + i * 180;
    parts.push(`<rect x="${x}" y="${H - 22}" width="12" height="12" fill="${COLORS[i % COLORS.length]}"/>`);
    parts.push(`<text x="${x + 18}" y="${H - 12}">${esc(name)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}

function bars(chart: BarChart): string {
  const values = chart.groups.flatMap((g) => g.values).filter((v): v is number => v !== null && Number.isFinite(v));
  const max = niceMax(Math.max(0, ...values, chart.line?.value ?? 0));
  const groupW = plotW / Math.max(1, chart.groups.length);
  const barW = Math.min(48, (groupW * 0.8) / Math.max(1, chart.series.length));
  const body: string[] = [];
  chart.groups.forEach((g, gi) => {
    const x0 = M.left + gi * groupW + (groupW - barW * chart.series.length) / 2;
    g.values.forEach((v, si) => {
      const x = x0 + si * barW;
      if (v === null || !Number.isFinite(v)) {
        body.push(`<text x="${x + barW / 2}" y="${M.top + plotH - 4}" text-anchor="middle" fill="#999">n/a</text>`);
        return;
      }
      const h = (v / max) * plotH;
      body.push(
        `<rect x="${x}" y="${M.top + plotH - h}" width="${barW - 2}" height="${h}" fill="${COLORS[si % COLORS.length]}"><title>${esc(`${chart.series[si]}: ${v}`)}</title></rect>`,
      );
      body.push(`<text x="${x + barW / 2 - 1}" y="${M.top + plotH - h - 4}" text-anchor="middle" font-size="10">${short(v)}</text>`);
    });
    body.push(`<text x="${M.left + gi * groupW + groupW / 2}" y="${M.top + plotH + 18}" text-anchor="middle">${esc(g.label)}</text>`);
  });
  return frame(chart, max, body);
}

function lines(chart: LineChart): string {
  const values = chart.series.flatMap((s) => s.values).filter((v): v is number => v !== null && Number.isFinite(v));
  const max = niceMax(Math.max(0, ...values, chart.line?.value ?? 0));
  // Inset the first and last points so their labels fit inside the picture.
  const inset = 50;
  const step = (plotW - 2 * inset) / Math.max(1, chart.xLabels.length - 1);
  const x = (i: number) => M.left + (chart.xLabels.length === 1 ? plotW / 2 : inset + i * step);
  const y = (v: number) => M.top + plotH - (v / max) * plotH;
  const body: string[] = chart.xLabels.map((l, i) => `<text x="${x(i)}" y="${M.top + plotH + 18}" text-anchor="middle">${esc(l)}</text>`);
  chart.series.forEach((s, si) => {
    const color = COLORS[si % COLORS.length];
    const points = s.values.map((v, i) => (v === null ? null : ([x(i), y(v)] as const))).filter((p) => p !== null);
    body.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${points.map(([px, py]) => `${px},${py}`).join(' ')}"/>`);
    for (const [px, py] of points) body.push(`<circle cx="${px}" cy="${py}" r="4" fill="${color}"/>`);
  });
  return frame(chart, max, body);
}

export function renderChart(chart: Chart): string {
  return chart.kind === 'bars' ? bars(chart) : lines(chart);
}
