/**
 * The Prometheus settings and alert rules an operator is given (docs/prometheus/): promtool takes the
 * config and the rules, the rules' unit tests pass, and every metric the rules name is one a server
 * exports, with the labels they use. promtool is Debian's `prometheus` package (.ci/run installs it).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../../server/plugins/metrics.js';
import { startTestApp, type TestApp } from '../support/app.js';

const root = path.resolve(import.meta.dirname, '../../..');
const docs = path.join(root, 'docs/prometheus');
const PROMTOOL = process.env.PROMTOOL ?? '/usr/bin/promtool';

/** promtool's verdict: exit code 0, or its output in the failure. */
async function promtool(...args: string[]): Promise<string> {
  if (!existsSync(PROMTOOL)) throw new Error(`${PROMTOOL} is missing: apt-get install prometheus (Debian's package has promtool), or set PROMTOOL.`);
  try {
    const { stdout, stderr } = await promisify(execFile)(PROMTOOL, args, { cwd: docs });
    return stdout + stderr;
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    throw new Error(`promtool ${args.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}

/** Each rule's expression, and the selectors in it: `metric{label="value", ...}` or a bare metric name. */
async function ruleSelectors(): Promise<Array<{ metric: string; labels: string[] }>> {
  const rules = await readFile(path.join(docs, 'milenotes-rules.yml'), 'utf8');
  const exprs = [...rules.matchAll(/^\s+expr: (.+)$/gm)].map((m) => m[1]!);
  expect(exprs.length).toBeGreaterThan(0);
  return exprs.flatMap((expr) =>
    [...expr.matchAll(/\b(milenotes_[a-z0-9_]+)(\{([^}]*)\})?/g)].map((m) => ({
      metric: m[1]!,
      labels: [...(m[3] ?? '').matchAll(/([a-z_]+)\s*(=~|!~|!=|=)/g)].map((l) => l[1]!),
    })),
  );
}

describe('the Prometheus settings and alert rules in docs/prometheus', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite', { METRICS: 'on' });
  });
  afterAll(() => t.close());

  it('should be taken by promtool: the config with its rule file, and the rules', async () => {
    expect(await promtool('check', 'config', 'prometheus.yml')).toContain('SUCCESS: prometheus.yml is valid prometheus config file syntax');
    expect(await promtool('check', 'rules', 'milenotes-rules.yml')).toMatch(/SUCCESS: \d+ rules found/);
  });

  it("should pass the rules' unit tests: each alert fires when it should and not before", async () => {
    expect(await promtool('test', 'rules', 'milenotes-rules.test.yml')).toContain('SUCCESS');
  });

  it("should name only metrics a server's /metrics has, with labels they have", async () => {
    const res = await t.app.inject({ url: '/metrics', remoteAddress: '127.0.0.1' });
    expect(res.statusCode).toBe(200);
    const exported = new Set(
      [...res.body.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name, type]) =>
        type === 'histogram' ? [name!, `${name}_bucket`, `${name}_sum`, `${name}_count`] : [name!],
      ),
    );
    // The same registry the server builds, for the label names a metric with no sample yet does not show.
    const { registry } = createMetrics(
      async () => 0,
      () => 0,
      async () => ({ live: 0, later: 0, overdueSeconds: 0 }),
      { folders: {}, minFreeBytes: 0 },
    );
    const selectors = await ruleSelectors();
    expect(selectors.length).toBeGreaterThan(5);
    for (const { metric, labels } of selectors) {
      expect(exported, `${metric} is not on /metrics`).toContain(metric);
      const known =
        (registry.getSingleMetric(metric.replace(/_(bucket|sum|count)$/, '')) as unknown as { labelNames?: string[] } | undefined)?.labelNames ?? [];
      for (const label of labels) expect(known, `${metric} has no label ${label}`).toContain(label);
    }
  });
});
