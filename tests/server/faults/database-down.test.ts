/**
 * PostgreSQL stopped (a cluster of this file's own, stopped and started with pg_ctl): every route
 * that writes, and sync, answers 503 storage_unavailable with Retry-After instead of a 500, and a
 * note refused meanwhile is taken once the database is back. These once were 500s.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntryNotes } from '../../../contract/runnerApi.js';
import { FAKE_APPLE_NONCE } from '../../../stand-ins/fakeApple.js';
import { startRunnerApp, type RunnerTestApp } from '../runner/support.js';
import { startOwnPostgres, type OwnPostgres } from '../../../kit/postgres.js';
import { UPCOMING } from '../support/races.js';
import { fakeWebm, putNote } from '../support/uploads.js';

let pg: OwnPostgres;
let t: RunnerTestApp;

beforeAll(async () => {
  pg = await startOwnPostgres();
  // The 'sqlite' test backend makes a data folder only; DATABASE_URL points the app at this cluster.
  t = await startRunnerApp('sqlite', { DATABASE_URL: pg.url, METRICS: 'on' });
});
afterAll(async () => {
  await t?.close().catch(() => {});
  pg?.remove();
});

const refusedFor = (res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) => ({
  status: res.statusCode,
  retryAfter: res.headers['retry-after'],
  error: (res.json() as { error?: string }).error,
});
const UNAVAILABLE = { status: 503, retryAfter: '10', error: 'storage_unavailable' };

describe('PostgreSQL stopped and started again', () => {
  it('should answer 503 storage_unavailable with Retry-After on every route that writes and on sync, and take the note once it is back', async () => {
    const session = await t.signIn();
    const entry = await t.enter(session);
    const { cursor } = (await t.call(session, 'GET', `/api/entries/${entry.id}/notes`)).json() as EntryNotes;
    const noteId = randomUUID();
    const body = fakeWebm();

    pg.stop();
    const note = await putNote(t.app, { token: entry.token, noteId, body });
    expect(refusedFor(note)).toEqual(UNAVAILABLE);
    expect(note.json()).toMatchObject({ message: expect.stringContaining('kept on your phone') });
    const signIn = await t.app.inject({
      method: 'POST',
      url: '/api/auth/apple',
      payload: { identityToken: await t.apple.token({ sub: 'apple-x' }), nonce: FAKE_APPLE_NONCE },
    });
    expect(refusedFor(signIn)).toEqual(UNAVAILABLE);
    expect(refusedFor(await t.call(session, 'POST', '/api/entries', { raceId: UPCOMING.berlin.id, displayName: 'Alex' }))).toEqual(UNAVAILABLE);
    expect(refusedFor(await t.call(session, 'GET', `/api/entries/${entry.id}/notes?after=${encodeURIComponent(cursor)}`))).toEqual(UNAVAILABLE);
    const metrics = (await t.app.inject('/metrics')).body;
    expect(metrics).toContain('milenotes_storage_faults_total{kind="database_unavailable",during="request"} 4');

    pg.start();
    const backAt = Date.now();
    const taken = await putNote(t.app, { token: entry.token, noteId, body });
    expect(taken.statusCode, taken.body).toBe(201);
    console.log(`PostgreSQL back: the note refused while it was down was taken ${Date.now() - backAt} ms after pg_ctl start returned`);
    expect((await t.app.repo.notes.find(noteId))?.status).toBe('received');
  });
});
