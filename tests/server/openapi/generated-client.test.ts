/**
 * reference-app/api.d.ts is what openapi-typescript makes of the document the server serves now, so a
 * contract change shows in review and breaks the type check of every caller (the runner API tests
 * call through openapi-fetch with these types).
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TYPES, apiTypes } from '../../../scripts/gen-api-types.mjs';
import { startRunnerApp, type RunnerTestApp } from '../runner/support.js';

describe('the generated client types', () => {
  let t: RunnerTestApp;
  beforeAll(async () => {
    t = await startRunnerApp('sqlite');
  });
  afterAll(() => t?.close());

  it('should be current: node scripts/gen-api-types.mjs rewrites reference-app/api.d.ts after a contract change', async () => {
    const expected = await apiTypes((await t.app.inject({ url: '/api/openapi.json' })).json());
    const committed = await readFile(API_TYPES, 'utf8');
    expect(committed === expected, 'reference-app/api.d.ts is stale: run node scripts/gen-api-types.mjs').toBe(true);
  });
});
