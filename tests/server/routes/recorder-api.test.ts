import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkIdOf } from '../../../server/links.js';
import { BACKENDS } from '../support/backends.js';
import { fakeWebm, putNote } from '../support/uploads.js';
import { startRunnerApp, type RunnerTestApp } from '../runner/support.js';

const LINK_NOT_FOUND = { error: 'link_not_found', message: "This link doesn't work any more. Ask the runner for a new one." };

describe.each(BACKENDS)('the recorder API under /api/r/ on %s', (kind) => {
  let t: RunnerTestApp;
  beforeAll(async () => {
    t = await startRunnerApp(kind);
  });
  afterAll(() => t.close());

  /** Every /api/r/ route, asked about one token (and one earlier note sent through it). */
  const everyRoute = (token: string, noteId: string) => ({
    link: () => t.app.inject({ url: `/api/r/${token}` }),
    upload: () => putNote(t.app, { token, body: fakeWebm() }),
    status: () => t.app.inject({ url: `/api/r/${token}/notes/${noteId}/status` }),
  });

  async function entryWithNote() {
    const session = await t.signIn();
    const entry = await t.enter(session);
    const noteId = await t.sendNote(entry.token);
    return { session, entry, noteId };
  }

  it('should answer every route while the link is live', async () => {
    const { entry, noteId } = await entryWithNote();
    const routes = everyRoute(entry.token, noteId);
    expect((await routes.link()).statusCode).toBe(200);
    expect((await routes.upload()).statusCode).toBe(201);
    expect((await routes.status()).json()).toEqual({ id: noteId, status: 'converted', onRunnersPhone: false });
  });

  it('should answer 404 link_not_found on every route once the link is revoked', async () => {
    const { entry, noteId } = await entryWithNote();
    await t.app.repo.links.revoke(linkIdOf(entry.token), new Date().toISOString());
    for (const [route, request] of Object.entries(everyRoute(entry.token, noteId))) {
      const res = await request();
      expect(res.statusCode, route).toBe(404);
      expect(res.json(), route).toEqual(LINK_NOT_FOUND);
    }
  });

  it('should answer 404 link_not_found on every route for a link the runner replaced', async () => {
    const { session, entry, noteId } = await entryWithNote();
    const replaced = await t.call(session, 'POST', `/api/entries/${entry.id}/link`);
    expect(replaced.statusCode, replaced.body).toBe(200);
    for (const [route, request] of Object.entries(everyRoute(entry.token, noteId))) {
      const res = await request();
      expect(res.statusCode, route).toBe(404);
      expect(res.json(), route).toEqual(LINK_NOT_FOUND);
    }
  });

  it.each([
    ['an unknown token', 'A'.repeat(32)],
    ['a token too short', 'abc'],
    ['a token with odd characters', '%00%2e%2e%2fetc'],
    ['a token one character too long', 'A'.repeat(33)],
  ])('should answer %s the same way on every route', async (_name, token) => {
    for (const [route, request] of Object.entries(everyRoute(token, randomUUID()))) {
      const res = await request();
      expect(res.statusCode, route).toBe(404);
      expect(res.json(), route).toEqual(LINK_NOT_FOUND);
      expect(res.headers['cache-control'], route).toBe('no-store');
    }
  });

  it('should answer a malformed note id with 400 invalid_note_id on both note routes', async () => {
    const { entry } = await entryWithNote();
    const answers = [
      await putNote(t.app, { token: entry.token, noteId: 'note-1', body: fakeWebm() }),
      await t.app.inject({ url: `/api/r/${entry.token}/notes/note-1/status` }),
    ];
    for (const res of answers) {
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'invalid_note_id', message: 'The note id must be a UUID made by the recorder.' });
    }
  });
});
