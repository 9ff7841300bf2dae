/**
 * Redocly's recommended rules (redocly.yaml, with each exception's reason there and in
 * .redocly.lint-ignore.yaml) over the document a real server serves: no errors, no warnings.
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRunnerApp, type RunnerTestApp } from '../runner/support.js';

const root = path.resolve(import.meta.dirname, '../../..');
/** The path .redocly.lint-ignore.yaml names. */
const served = path.join(root, 'test-results/openapi/openapi.json');

describe('the OpenAPI document under Redocly’s recommended rules', () => {
  let t: RunnerTestApp;
  beforeAll(async () => {
    t = await startRunnerApp('sqlite');
  });
  afterAll(() => t?.close());

  it('should have no errors and no warnings', async () => {
    await mkdir(path.dirname(served), { recursive: true });
    await writeFile(served, (await t.app.inject({ url: '/api/openapi.json' })).body);
    const run = await promisify(execFile)(path.join(root, 'node_modules/.bin/redocly'), ['lint', '--format=json', path.relative(root, served)], {
      cwd: root,
    }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
    const result = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as {
      totals: { errors: number; warnings: number };
      problems: Array<{ ruleId: string; message: string }>;
    };
    expect(result.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(result.totals).toMatchObject({ errors: 0, warnings: 0 });
  });
});
