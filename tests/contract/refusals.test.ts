/**
 * docs/app-contract.md's table of refusals, held to the catalogue (contract/refusals.ts): each code
 * it names is one the app can meet, with that status, and every code that tells the app when to
 * try again (Retry-After) is in a row that says to wait for it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isRefusalCode, PUSH_REFUSALS, RECORDER_REFUSALS, REFUSALS, refusalsOf } from '../../contract/refusals.js';

const page = readFileSync(path.resolve(import.meta.dirname, '../../docs/app-contract.md'), 'utf8');

/** The rows of the table under "Errors and limits": the codes of each, its status and what the app does. */
const rows = [...page.matchAll(/^\| (`[^|]+`)\s*\| (\d{3})\s*\| (.+?)\s*\|$/gm)].map(([, codes, status, does]) => ({
  codes: [...codes!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!),
  status: Number(status),
  does: does!,
}));

describe('the table of refusals in docs/app-contract.md', () => {
  it('should name only codes the app can meet, each with a status the catalogue gives it', () => {
    expect(rows.length).toBeGreaterThan(5);
    const wrong = rows.flatMap(({ codes, status }) =>
      codes.flatMap((code) => {
        if (!isRefusalCode(code)) return [`${code}: not in the catalogue`];
        if (!(REFUSALS[code].audiences as readonly string[]).includes('app')) return [`${code}: not one the app meets`];
        return (REFUSALS[code].status as readonly number[]).includes(status) ? [] : [`${code}: ${status}`];
      }),
    );
    expect(wrong).toEqual([]);
  });

  it('should tell the app to wait Retry-After for every code that sends it', () => {
    const waited = new Set(rows.filter((r) => r.does.includes('Retry-After')).flatMap((r) => r.codes));
    const retried = refusalsOf('app').filter((code) => REFUSALS[code].retryAfter);
    expect(retried.filter((code) => !waited.has(code))).toEqual([]);
  });
});

describe('the catalogue by audience', () => {
  it('should keep the recorder’s notes and the push routes’ own codes apart', () => {
    expect(PUSH_REFUSALS.filter((code) => (RECORDER_REFUSALS as string[]).includes(code))).toEqual([]);
    expect(PUSH_REFUSALS).toContain('push_off');
    expect(RECORDER_REFUSALS).toContain('link_full');
    expect(refusalsOf('operator')).toEqual([]);
  });
});
