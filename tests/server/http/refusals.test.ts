import { describe, expect, it } from 'vitest';
import { RECORDER_REFUSALS, type RecorderRefusal } from '../../../src/shared/refusals.js';
import type { ApiProblem } from '../../../server/http/problem.js';
import { refusal } from '../../../server/http/refusals.js';

/** Values for the sentences that take some; every other refusal takes none. */
const ARGS: Partial<Record<RecorderRefusal, unknown[]>> = {
  address_rate_limited: [30], link_full: ['Alex', 86_400], link_storage_full: ['Alex', 86_400], shutting_down: [5],
  server_error: [true], upload_busy: [4], 'mismatching-upload-offset': [1_000, 1_200],
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
