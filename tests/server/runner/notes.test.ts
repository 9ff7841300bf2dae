import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../support/backends.js';
import { PUBLIC_URL, startRunnerApp, type RunnerTestApp } from './support.js';

describe.each(BACKENDS)('notes by marker, heard receipts and the sender’s view on %s', (kind) => {
  let t: RunnerTestApp;
  beforeAll(async () => {
    t = await startRunnerApp(kind);
  });
  afterAll(() => t.close());

  it('should group notes by marker in course order with signed audio URLs for converted ones', async () => {
    const session = await t.signIn();
    const entry = await t.enter(session);
    const late = await t.sendNote(entry.token, { marker: 'mi-20', from: 'Pat' });
    const early = await t.sendNote(entry.token, { marker: 'mi-3', from: 'Kim' });
    const waiting = await t.sendNote(entry.token, { marker: 'mi-3', from: 'Lee', convert: false });
    const res = await t.call(session, 'GET', `/api/entries/${entry.id}/notes`);
    expect(res.statusCode).toBe(200);
    const { markers } = res.json();
    expect(markers.map((m: { marker: string }) => m.marker)).toEqual(['mi-3', 'mi-20']);
    expect(markers[0]).toMatchObject({ label: 'Mile 3', count: 2 });
    const [kim, lee] = markers[0].notes;
    expect(kim).toMatchObject({ id: early, from: 'Kim', status: 'converted', durationMs: 4200, heardAt: null });
    expect(kim.audioUrl).toMatch(new RegExp(`^${PUBLIC_URL}/api/notes/${early}/audio\\?expires=\\d+&sig=`));
    expect(lee).toMatchObject({ id: waiting, status: 'received', audioUrl: null, durationMs: null });
    expect(markers[1].notes[0].id).toBe(late);
  });

  it('should give only counts per marker with ?summary=1', async () => {
    const session = await t.signIn();
    const entry = await t.enter(session);
    await t.sendNote(entry.token, { marker: 'finish' });
    await t.sendNote(entry.token, { marker: 'finish' });
    const res = await t.call(session, 'GET', `/api/entries/${entry.id}/notes?summary=1`);
    expect(res.json()).toEqual({
      entryId: entry.id,
      markers: [{ marker: 'finish', label: 'Finish', count: 2 }],
      cursor: expect.any(String),
      raceStartsAt: '2099-10-11T12:30:00.000Z',
    });
  });

  it('should tell the sender “heard at Mile 13” only after the runner’s app reports the play', async () => {
    const session = await t.signIn();
    const entry = await t.enter(session);
    const noteId = await t.sendNote(entry.token, { marker: 'mi-13' });
    const statusUrl = `/api/r/${entry.token}/notes/${noteId}/status`;
    expect((await t.app.inject({ url: statusUrl })).json()).toEqual({ id: noteId, status: 'converted', onRunnersPhone: false });

    const played = await t.call(session, 'POST', `/api/notes/${noteId}/played`, { playedAt: '2025-10-12T14:03:00Z', marker: 'mi-13' });
    expect(played.statusCode).toBe(200);
    expect(played.json()).toEqual({ id: noteId, heardAt: '2025-10-12T14:03:00.000Z', heardAtMarker: 'mi-13' });
    expect((await t.app.inject({ url: statusUrl })).json()).toEqual({
      id: noteId,
      status: 'converted',
      onRunnersPhone: false,
      heardAt: '2025-10-12T14:03:00.000Z',
      heardAtMarker: 'mi-13',
      heardAtLabel: 'Mile 13',
    });
    // A replay after the race does not move the first hearing.
    await t.call(session, 'POST', `/api/notes/${noteId}/played`, { playedAt: '2025-10-13T09:00:00Z', marker: 'finish' });
    expect((await t.app.inject({ url: statusUrl })).json().heardAtLabel).toBe('Mile 13');
    const notes = (await t.call(session, 'GET', `/api/entries/${entry.id}/notes`)).json();
    expect(notes.markers[0].notes[0].heardAt).toBe('2025-10-12T14:03:00.000Z');
  });

  it('should tell nothing to someone without both the link and the note id', async () => {
    const session = await t.signIn();
    const entry = await t.enter(session);
    const other = await t.enter(session, 'nyc-2099');
    const noteId = await t.sendNote(entry.token);
    for (const url of [`/api/r/${other.token}/notes/${noteId}/status`, `/api/r/${entry.token}/notes/00000000-0000-4000-8000-000000000000/status`]) {
      const res = await t.app.inject({ url });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'note_not_found', message: 'This note was not found.' });
    }
  });

  it('should refuse a heard receipt for another runner’s note or at an unknown marker', async () => {
    const owner = await t.signIn();
    const stranger = await t.signIn();
    const noteId = await t.sendNote((await t.enter(owner)).token);
    const res = await t.call(stranger, 'POST', `/api/notes/${noteId}/played`, { playedAt: new Date().toISOString(), marker: 'mi-1' });
    expect(res.statusCode).toBe(404);
    const bad = await t.call(owner, 'POST', `/api/notes/${noteId}/played`, { playedAt: new Date().toISOString(), marker: 'mi-99' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/marker/);
  });
});
