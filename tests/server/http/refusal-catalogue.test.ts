/**
 * The server makes only the refusals contract/refusals.ts lists: the compiler holds each
 * `new ApiProblem(status, code)` to the catalogue; these tests hold the rest (Retry-After as the
 * catalogue says, no error body written by hand, no refusal made outside the tables).
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isRefusalCode, isRefusalStatus, REFUSAL_CODES, REFUSALS } from '../../../contract/refusals.js';
import { ApiProblem } from '../../../server/http/problem.js';

const root = path.resolve(import.meta.dirname, '../../..');

/** The modules that hold the server's refusal makers: their sentences, each keyed by code. */
const TABLES = ['server/http/refusals.ts', 'server/http/session-refusals.ts', 'server/push/refusals.ts', 'server/http/problem.ts'];

/** Every refusal the tables make, each maker called with no values (as the OpenAPI contract calls them). */
async function madeRefusals(): Promise<ApiProblem[]> {
  const made: ApiProblem[] = [];
  const take = (maker: unknown) => {
    if (typeof maker !== 'function' || maker === ApiProblem || maker.prototype instanceof ApiProblem) return;
    const problem = (maker as () => unknown)();
    if (problem instanceof ApiProblem) made.push(problem);
  };
  for (const file of TABLES) {
    for (const value of Object.values(await import(path.join(root, file)))) {
      if (typeof value === 'function') take(value);
      else if (typeof value === 'object' && value !== null) Object.values(value).forEach(take);
    }
  }
  return made;
}

async function serverFiles(dir: string): Promise<string[]> {
  const entries = await readdir(path.join(root, dir), { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => path.relative(root, path.join(e.parentPath, e.name)));
}

describe('the catalogue of refusals', () => {
  it('should give every code at least one error status and an audience', () => {
    for (const code of REFUSAL_CODES) {
      expect(REFUSALS[code].status.length, code).toBeGreaterThan(0);
      expect(
        REFUSALS[code].status.every((s) => s >= 400 && s < 600),
        code,
      ).toBe(true);
      expect(REFUSALS[code].audiences.length, code).toBeGreaterThan(0);
    }
  });

  it('should hold every refusal the server makes, with its status and its Retry-After', async () => {
    const made = await madeRefusals();
    expect(made.length).toBeGreaterThan(60);
    const wrong = made.flatMap((p) => {
      if (!isRefusalCode(p.code)) return [`${p.code}: not in the catalogue`];
      if (!isRefusalStatus(p.code, p.statusCode)) return [`${p.code}: status ${p.statusCode}`];
      if ('retry-after' in p.headers && !REFUSALS[p.code].retryAfter) return [`${p.code}: sends Retry-After the catalogue does not say`];
      return [];
    });
    expect(wrong).toEqual([]);
    // Every code the catalogue lists is made somewhere (Fastify's statuses of bad_request by the error handler).
    const codes = new Set(made.map((p) => p.code));
    expect(REFUSAL_CODES.filter((c) => !codes.has(c))).toEqual([]);
  });

  it('should say Retry-After only where a refusal of that code can send it', async () => {
    const withHeader = new Set((await madeRefusals()).filter((p) => 'retry-after' in p.headers).map((p) => p.code));
    // rate_limited's header is @fastify/rate-limit's; the rest carry it on the refusal.
    const claimed = REFUSAL_CODES.filter((c) => REFUSALS[c].retryAfter && c !== 'rate_limited');
    expect(claimed.filter((c) => !withHeader.has(c))).toEqual([]);
  });

  it('should find no error body written by hand and no refusal made outside its tables', async () => {
    const found: string[] = [];
    for (const file of await serverFiles('server')) {
      const text = await readFile(path.join(root, file), 'utf8');
      text.split('\n').forEach((line, i) => {
        if (/\berror:\s*['"`]/.test(line)) found.push(`${file}:${i + 1} error literal`);
        if (/new (Api|Upload)Problem\b/.test(line) && !TABLES.includes(file)) found.push(`${file}:${i + 1} refusal made outside the tables`);
      });
    }
    expect(found).toEqual([]);
  });
});
