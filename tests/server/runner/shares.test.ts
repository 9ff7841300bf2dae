import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../support/backends.js';
import { startRunnerApp, type RunnerTestApp } from './support.js';

describe.each(BACKENDS)('keepsake shares on %s', (kind) => {
  let t: RunnerTestApp;
  beforeAll(async () => {
    t = await startRunnerApp(kind);
  });
  afterAll(() => t.close());

  const tokenOf = (url: string) => url.split('/s/')[1]!;

  it('should show nothing of a race until the runner shares it', async () => {
    const session = await t.signIn();
    const entry = await t.enter(session, 'berlin-2099', 'Mia');
    await t.sendNote(entry.token, { marker: 'km-10', from: 'Oma' });
    await t.sendNote(entry.token, { marker: 'mi-26', from: 'Ben' });
    await t.sendNote(entry.token, { marker: 'finish', from: 'Not yet', convert: false });
    expect((await t.app.inject({ url: `/api/s/${entry.token}` })).statusCode).toBe(404);

    const res = await t.call(session, 'POST', '/api/shares', { entryId: entry.id });
    expect(res.statusCode).toBe(201);
    const token = tokenOf(res.json().url);
    const keepsake = await t.app.inject({ url: `/api/s/${token}` });
    expect(keepsake.statusCode).toBe(200);
    expect(keepsake.json()).toMatchObject({
      runner: { displayName: 'Mia' },
      race: { id: 'berlin-2099', name: 'Berlin Marathon', date: '2099-09-27' },
      notes: [
        { marker: 'km-10', markerLabel: '10 km', from: 'Oma', durationMs: 4200 },
        { marker: 'mi-26', markerLabel: 'Mile 26', from: 'Ben' },
      ],
    });
    expect(keepsake.json().notes[0].audioUrl).toMatch(new RegExp(`^/api/s/${token}/notes/[0-9a-f-]{36}/audio$`));
  });

  it('should share one note alone when asked to', async () => {
    const session = await t.signIn();
    const entry = await t.enter(session);
    const chosen = await t.sendNote(entry.token, { from: 'Chosen' });
    await t.sendNote(entry.token, { from: 'Private' });
    const token = tokenOf((await t.call(session, 'POST', '/api/shares', { noteId: chosen })).json().url);
    const notes = (await t.app.inject({ url: `/api/s/${token}` })).json().notes;
    expect(notes.map((n: { from: string }) => n.from)).toEqual(['Chosen']);
  });

  it('should refuse to share another runner’s entry or note, or a body naming both', async () => {
    const owner = await t.signIn();
    const stranger = await t.signIn();
    const entry = await t.enter(owner);
    const noteId = await t.sendNote(entry.token);
    expect((await t.call(stranger, 'POST', '/api/shares', { entryId: entry.id })).statusCode).toBe(404);
    expect((await t.call(stranger, 'POST', '/api/shares', { noteId })).statusCode).toBe(404);
    expect((await t.call(owner, 'POST', '/api/shares', { noteId, entryId: entry.id })).statusCode).toBe(400);
  });

  it('should answer an unknown or malformed share token with the clear message', async () => {
    for (const token of ['A'.repeat(32), 'short']) {
      const res = await t.app.inject({ url: `/api/s/${token}` });
      expect(res.statusCode).toBe(404);
    }
    expect((await t.app.inject({ url: `/api/s/${'A'.repeat(32)}` })).json().message).toMatch(/aren't shared any more/);
  });
});

describe('the OpenAPI document', () => {
  let t: RunnerTestApp;
  beforeAll(async () => {
    t = await startRunnerApp('sqlite');
  });
  afterAll(() => t.close());

  it('should describe every runner route with the schemas the routes validate with', async () => {
    const res = await t.app.inject({ url: '/api/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    for (const [path, method] of [
      ['/api/auth/apple', 'post'],
      ['/api/auth/refresh', 'post'],
      ['/api/races', 'get'],
      ['/api/entries', 'post'],
      ['/api/entries/{id}/link', 'post'],
      ['/api/entries/{id}/link', 'delete'],
      ['/api/entries/{id}/notes', 'get'],
      ['/api/notes/{id}/audio', 'get'],
      ['/api/notes/{id}/played', 'post'],
      ['/api/shares', 'post'],
      ['/api/shares/{id}', 'delete'],
      ['/api/me', 'delete'],
      ['/api/s/{token}', 'get'],
      ['/api/r/{token}/notes/{noteId}/status', 'get'],
      ['/api/r/{token}', 'get'],
      ['/api/r/{token}/notes/{noteId}', 'put'],
    ] as const) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
    const signIn = doc.paths['/api/auth/apple'].post;
    expect(signIn.requestBody.content['application/json'].schema.required).toEqual(['identityToken', 'nonce']);
    expect(doc.paths['/api/entries'].post.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(doc.paths).every((p) => p.startsWith('/api/'))).toBe(true);
  });
});
