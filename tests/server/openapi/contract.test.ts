/**
 * /api/openapi.json as the app team's generators read it: every operation named, public ones
 * marked public, every refusal with its codes, the servers from PUBLIC_URL and a version that
 * follows the content. The document does not depend on the database, so one backend serves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractVersion, operationsOf, type OpenApiDoc } from '../../../server/routes/runner/openapi.js';
import { isRefusalCode, isRefusalStatus, RECORDER_REFUSALS } from '../../../contract/refusals.js';
import { PUBLIC_URL, startRunnerApp, type RunnerTestApp } from '../runner/support.js';

describe('the OpenAPI document', () => {
  let t: RunnerTestApp;
  let doc: OpenApiDoc;
  beforeAll(async () => {
    t = await startRunnerApp('sqlite');
    doc = (await t.app.inject({ url: '/api/openapi.json' })).json<OpenApiDoc>();
  });
  afterAll(() => t?.close());

  it('should name every operation with a unique camelCase verb a Swift method can take', () => {
    const ops = operationsOf(doc);
    expect(ops.length).toBeGreaterThanOrEqual(21);
    const unnamed = ops.filter(({ op }) => typeof op.operationId !== 'string').map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(unnamed, 'routes without schema.operationId').toEqual([]);
    const ids = ops.map(({ op }) => op.operationId as string);
    expect(
      ids.filter((id, i) => ids.indexOf(id) !== i),
      'operationIds used twice',
    ).toEqual([]);
    expect(
      ids.filter((id) => !/^[a-z]+[A-Z][A-Za-z]*$/.test(id)),
      'not a camelCase verb and noun',
    ).toEqual([]);
  });

  it('should mark public operations public and the others as needing a bearer session', () => {
    for (const { op, path, method } of operationsOf(doc)) {
      expect(Array.isArray(op.security), `${method} ${path}`).toBe(true);
    }
    const security = (id: string) => operationsOf(doc).find(({ op }) => op.operationId === id)!.op.security;
    expect(security('getRecorderLink')).toEqual([]);
    expect(security('signInWithApple')).toEqual([]);
    expect(security('listEntries')).toEqual([{ bearer: [] }]);
    expect(security('getNoteAudio')).toEqual([{ bearer: [] }, {}]);
  });

  it('should give every refusal the shared error shape and the list of its codes', () => {
    const uncoded: string[] = [];
    for (const { op } of operationsOf(doc)) {
      for (const [status, response] of Object.entries(op.responses!)) {
        // 416 (a range past the end) is an empty answer with Content-Range, not a refusal with a body.
        if (Number(status) < 400 || !response.content) continue;
        const listed = response['x-error-codes'];
        if (!Array.isArray(listed) || listed.length === 0) uncoded.push(`${op.operationId} ${status}`);
        expect(response.content?.['application/json']?.schema?.required ?? response.content?.['application/problem+json']?.schema?.required).toEqual(
          expect.arrayContaining(['error', 'message']),
        );
      }
    }
    expect(uncoded, 'error answers without x-error-codes').toEqual([]);
    const codes = new Set(
      operationsOf(doc).flatMap(({ op }) => Object.values(op.responses!).flatMap((r) => (r['x-error-codes'] as string[] | undefined) ?? [])),
    );
    // The recorder's codes all appear somewhere, written by the one owner (server/http/refusals.ts).
    expect(RECORDER_REFUSALS.filter((c) => !codes.has(c) && c !== 'not_found')).toEqual([]);
  });

  it('should list on each answer only codes of the catalogue with that status, as the enum of its error', () => {
    const wrong: string[] = [];
    for (const { op } of operationsOf(doc)) {
      for (const [status, response] of Object.entries(op.responses!)) {
        const listed = (response['x-error-codes'] as string[] | undefined) ?? [];
        for (const code of listed) if (!isRefusalCode(code) || !isRefusalStatus(code, Number(status))) wrong.push(`${op.operationId} ${status} ${code}`);
        const enums = Object.values(response.content ?? {}).flatMap((media) => {
          const error = (media.schema?.properties as Record<string, { enum?: string[] }> | undefined)?.error;
          return error?.enum ?? [];
        });
        if (listed.length > 0 && [...new Set(enums)].sort().join() !== listed.join()) wrong.push(`${op.operationId} ${status}: enum ${enums} for ${listed}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('should type every success answer: JSON by schema, audio as binary with its range headers, empty answers by their headers', () => {
    const op = (id: string) => operationsOf(doc).find(({ op }) => op.operationId === id)!.op;
    for (const { op: o } of operationsOf(doc)) {
      const success = Object.keys(o.responses!).filter((s) => s.startsWith('2'));
      expect(success.length, `${o.operationId} documents a success`).toBeGreaterThan(0);
    }
    const audio = op('getNoteAudio').responses!;
    expect(audio['200']!.content!['audio/mp4']!.schema).toEqual({ type: 'string', format: 'binary' });
    expect(audio['206']!.headers!['content-range']!.required).toBe(true);
    expect(op('getUpload').responses!['204']!.headers!['upload-offset']!.required).toBe(true);
    expect(op('appendUpload').responses!['204']!.headers!['upload-offset']!.required).toBe(true);
    expect(op('cancelUpload').responses!['204']).toBeDefined();
  });

  it('should name the servers from PUBLIC_URL and version the document by its content', () => {
    expect(doc.servers).toEqual([{ url: PUBLIC_URL }]);
    expect(doc.info.version).toBe(contractVersion(doc));
    const changed = structuredClone(doc);
    changed.paths!['/api/races']!.get!.summary += '!';
    expect(contractVersion(changed)).not.toBe(doc.info.version);
    expect(contractVersion({ ...doc, servers: [{ url: 'https://elsewhere.test' }] })).toBe(doc.info.version);
  });
});
