import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../server/app.js';
import { testLog } from '../support/app.js';
import { openRepository } from '../../../server/db/index.js';
import type { Repository } from '../../../server/db/repository.js';
import { newToken } from '../../../server/links.js';
import { createBackend, BACKENDS, type TestBackend } from '../support/backends.js';
import { makeLink } from '../support/uploads.js';
import { startRunnerApp, type RunnerTestApp } from '../runner/support.js';

describe.each(BACKENDS)('the API’s one error path on %s', (kind) => {
  let t: RunnerTestApp;
  beforeAll(async () => {
    t = await startRunnerApp(kind);
  });
  afterAll(() => t.close());

  it('should answer a malformed path id as the missing thing it names, on every family of routes', async () => {
    const session = await t.signIn();
    const cases = [
      ['GET', '/api/entries/not-a-uuid/notes', 'entry_not_found'],
      ['DELETE', '/api/entries/not-a-uuid/link', 'entry_not_found'],
      ['POST', '/api/notes/not-a-uuid/played', 'note_not_found'],
      ['GET', '/api/notes/not-a-uuid/audio', 'note_not_found'],
      ['DELETE', '/api/shares/not-a-uuid', 'share_not_found'],
      ['GET', '/api/s/short', 'share_not_found'],
      ['GET', `/api/s/${newToken()}/notes/not-a-uuid/audio`, 'note_not_found'],
    ] as const;
    for (const [method, url, error] of cases) {
      const res = await t.call(session, method, url, method === 'POST' ? { playedAt: new Date().toISOString(), marker: 'mi-1' } : undefined);
      expect(res.statusCode, url).toBe(404);
      expect(res.json(), url).toEqual({ error, message: expect.any(String) });
      expect(res.headers['cache-control'], url).toBe('no-store');
    }
  });

  it('should ask for a session before judging a malformed id', async () => {
    const res = await t.call(undefined, 'GET', '/api/entries/not-a-uuid/notes');
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe('not_signed_in');
  });

  it('should take only JSON on the runner’s routes and answer broken JSON with a 400', async () => {
    const post = (type: string, payload: string) => t.app.inject({ method: 'POST', url: '/api/auth/refresh', headers: { 'content-type': type }, payload });
    const notJson = await post('text/plain', 'refresh me');
    expect(notJson.statusCode).toBe(415);
    expect(notJson.json()).toEqual({ error: 'bad_request', message: expect.any(String) });
    const broken = await post('application/json', '{"refreshToken":');
    expect(broken.statusCode).toBe(400);
    expect(broken.json()).toEqual({ error: 'bad_request', message: expect.any(String) });
  });

  it('should answer an unknown /api path with 404 whatever body it carries', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/nothing-here', headers: { 'content-type': 'application/json' }, payload: '{"x":' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'not_found', message: 'There is nothing at POST /api/nothing-here.' });
  });

  it('should name the field of a body that fails its schema', async () => {
    const session = await t.signIn();
    const res = await t.call(session, 'POST', '/api/entries', { raceId: 'chicago-2025' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'bad_request', message: "The field 'displayName' is missing or not valid." });
  });
});

describe.each(BACKENDS)('a failure of ours under /api on %s', (kind) => {
  let backend: TestBackend;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let token: string;
  const secret = 'connection to db-internal.example:5432 refused';
  beforeAll(async () => {
    // Silent: the error lines this provokes on purpose would only clutter the test output.
    backend = await createBackend(kind, { LOG_LEVEL: 'silent' });
    const real = await openRepository(backend.config);
    token = await makeLink(real);
    const fail = async (): Promise<never> => {
      throw new Error(secret);
    };
    const broken: Repository = { ...real, links: { ...real.links, find: fail }, shares: { ...real.shares, find: fail } };
    app = await buildApp(backend.config, { repo: broken, logStream: testLog });
  });
  afterAll(async () => {
    await app.close();
    await backend.cleanup();
  });

  it.each([
    ['a recorder route', () => `/api/r/${token}`, /Your note is kept on your phone/],
    ['a keepsake route', () => `/api/s/${newToken()}`, /Please try again/],
  ])('should answer %s with a plain 500 that tells nothing of the cause', async (_name, url, sentence) => {
    const res = await app.inject({ url: url() });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: 'server_error', message: expect.stringMatching(sentence) });
    expect(res.body).not.toContain('db-internal');
    expect(res.headers['cache-control']).toBe('no-store');
  });
});
