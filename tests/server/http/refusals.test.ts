import { describe, expect, it } from 'vitest';
import { RECORDER_REFUSALS, type RecorderRefusal } from '../../../contract/refusals.js';
import type { ApiProblem } from '../../../server/http/problem.js';
import { refusal } from '../../../server/http/refusals.js';

/** Values for the sentences that take some; every other refusal takes none. */
const ARGS: Partial<Record<RecorderRefusal, unknown[]>> = {
  address_rate_limited: [30],
  link_full: ['Alex', 86_400],
  link_storage_full: ['Alex', 86_400],
  shutting_down: [5],
  server_error: [true],
  upload_busy: [4],
  'mismatching-upload-offset': [1_000, 1_200],
};

describe('the refusals a sender’s recorder can receive', () => {
  it.each(RECORDER_REFUSALS)('should answer %s with that code, an error status and a sentence a person can read', (code) => {
    const problem = (refusal[code] as (...args: unknown[]) => ApiProblem)(...(ARGS[code] ?? []));
    expect(problem.code).toBe(code);
    expect(problem.statusCode).toBeGreaterThanOrEqual(400);
    expect(problem.message).toMatch(/^[A-Z].*[.!]$/);
  });

  it('should have one entry for each code the recorder knows, and no other', () => {
    expect(Object.keys(refusal).sort()).toEqual([...RECORDER_REFUSALS].sort());
  });
});

describe('every refusal the API makes', () => {
  it('should answer each error code with one status, wherever it is made', async () => {
    const tables = await import('../../../server/http/refusals.js');
    const problems = await import('../../../server/http/problem.js');
    const statuses = new Map<string, Set<number>>();
    const add = (made: unknown) => {
      if (!(made instanceof problems.ApiProblem)) return;
      statuses.set(made.code, (statuses.get(made.code) ?? new Set()).add(made.statusCode));
    };
    // Each factory called with no values, as the contract (server/http/contract.ts) calls them.
    for (const table of Object.values(tables)) {
      if (typeof table !== 'object' || table === null) continue;
      for (const make of Object.values(table)) if (typeof make === 'function') add((make as () => unknown)());
    }
    for (const make of Object.values(problems))
      if (typeof make === 'function' && make.length === 0 && make !== problems.ApiProblem) add((make as () => unknown)());
    expect(statuses.size).toBeGreaterThan(30);
    expect([...statuses].filter(([, s]) => s.size > 1).map(([code, s]) => `${code}: ${[...s].join(', ')}`)).toEqual([]);
  });
});
