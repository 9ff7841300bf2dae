import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_NOTE_BYTES } from '../../../contract/limits.js';
import { linkIdOf } from '../../../server/links.js';
import { BACKENDS } from '../support/backends.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { send, sendRaw } from '../support/http.js';
import { digestOf, fakeWebm, makeLink } from '../support/uploads.js';

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

describe.each(BACKENDS)('a battery of bad requests on %s', (kind) => {
  let t: TestApp;
  let base: string;
  let port: number;
  let token: string;
  const audio = fakeWebm(2000);
  const good = { 'content-type': 'audio/webm', 'content-digest': digestOf(audio) };
  const notePath = (opts: { tok?: string; id?: string; marker?: string; from?: string } = {}) =>
    `/api/r/${opts.tok ?? token}/notes/${opts.id ?? randomUUID()}?${new URLSearchParams({ marker: opts.marker ?? 'mi-5', from: opts.from ?? 'Sam' })}`;

  beforeAll(async () => {
    t = await startTestApp(kind);
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = Number(new URL(base).port);
    token = await makeLink(t.app.repo);
  });
  afterAll(() => t.close());

  const cases: [string, () => Promise<{ status: number; text: string }>, number][] = [
    ['an unknown token', () => send(base, 'PUT', notePath({ tok: 'Z'.repeat(32) }), good, [audio]), 404],
    ['a token with odd characters', () => send(base, 'GET', '/api/r/%00%2e%2e%2fetc', {}), 404],
    ['a malformed note id', () => send(base, 'PUT', notePath({ id: 'note-1' }), good, [audio]), 400],
    ['a note id that climbs folders', () => send(base, 'PUT', notePath({ id: '..%2F..%2Fetc%2Fpasswd' }), good, [audio]), 400],
    ['an unknown marker', () => send(base, 'PUT', notePath({ marker: 'mi-99' }), good, [audio]), 400],
    ['a missing marker', () => send(base, 'PUT', `/api/r/${token}/notes/${randomUUID()}?from=Sam`, good, [audio]), 400],
    ['a huge name', () => send(base, 'PUT', notePath({ from: 'x'.repeat(5000) }), good, [audio]), 400],
    ['a blank name', () => send(base, 'PUT', notePath({ from: '   ' }), good, [audio]), 400],
    ['a name with control characters', () => send(base, 'PUT', notePath({ from: 'Sam\u0007' }), good, [audio]), 400],
    [
      'a body that is not audio',
      () => send(base, 'PUT', notePath(), { ...good, 'content-digest': digestOf(Buffer.from('{"a":1}')) }, [Buffer.from('{"a":1}')]),
      415,
    ],
    [
      'garbage JSON',
      () => send(base, 'PUT', notePath(), { 'content-type': 'application/json', 'content-digest': digestOf(audio) }, [Buffer.from('{bad json')]),
      415,
    ],
    ['no content type', () => send(base, 'PUT', notePath(), { 'content-digest': digestOf(audio) }, [audio]), 415],
    ['an empty body', () => send(base, 'PUT', notePath(), { ...good, 'content-length': '0' }), 415],
    ['a digest that does not match', () => send(base, 'PUT', notePath(), { ...good, 'content-digest': digestOf(Buffer.from('x')) }, [audio]), 400],
    ['a missing digest', () => send(base, 'PUT', notePath(), { 'content-type': 'audio/webm' }, [audio]), 400],
    ['a digest in the wrong algorithm', () => send(base, 'PUT', notePath(), { ...good, 'content-digest': 'md5=:AAAA:' }, [audio]), 400],
    [
      'a declared body over the cap',
      () => send(base, 'PUT', notePath(), { ...good, 'content-length': String(MAX_NOTE_BYTES + 1) }, [fakeWebm(MAX_NOTE_BYTES + 1)]),
      413,
    ],
    [
      'a chunked body that grows over the cap',
      () => send(base, 'PUT', notePath(), good, [fakeWebm(64 * 1024), ...Array.from({ length: 60 }, () => Buffer.alloc(64 * 1024, 1))]),
      413,
    ],
    ['a wrong method', () => send(base, 'DELETE', notePath(), {}), 404],
    ['a POST to the link', () => send(base, 'POST', `/api/r/${token}`, { 'content-type': 'application/json' }, [Buffer.from('{"x":')]), 404],
    ['an unknown API path', () => send(base, 'GET', '/api/notes', {}), 404],
  ];

  it.each(cases)('should refuse %s with a clear JSON error and no 5xx', async (_name, request, expected) => {
    const answer = await request();
    expect(answer.status).toBe(expected);
    const body = JSON.parse(answer.text);
    expect(body).toEqual({ error: expect.any(String), message: expect.any(String) });
    expect(body.message.length).toBeGreaterThan(10);
    expect(answer.text).not.toMatch(/at .*\.ts:\d+/);
  });

  it('should answer raw garbage with a 4xx and stay up', async () => {
    const reply = await sendRaw(port, 'HELLO THERE\r\n\r\n\x00\x01\x02');
    expect(reply).toMatch(/^HTTP\/1\.1 4\d\d/);
  });

  it('should store nothing from an upload the client abandons half way', async () => {
    const blobsDir = path.join(t.backend.config.dataDir, 'blobs');
    const req = http.request(new URL(notePath(), base), { method: 'PUT', headers: { ...good, 'content-length': '100000' } });
    req.on('error', () => {});
    req.write(fakeWebm(30_000));
    // Cut the upload only once the server is writing it, then wait for it to clean up.
    await expect.poll(() => filesUnder(blobsDir), { timeout: 5000 }).toHaveLength(1);
    req.destroy();
    await expect.poll(() => filesUnder(blobsDir), { timeout: 5000 }).toEqual([]);
  });

  it('should still be up, and have stored no note and no file', async () => {
    const answer = await send(base, 'GET', `/api/r/${token}`, {});
    expect(answer.status).toBe(200);
    expect(await t.app.repo.notes.ofLink(linkIdOf(token))).toEqual([]);
    expect(await filesUnder(path.join(t.backend.config.dataDir, 'blobs'))).toEqual([]);
  });
});
