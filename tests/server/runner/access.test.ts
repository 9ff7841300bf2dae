import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signAudio } from '../../../server/auth/audio-url.js';
import { BACKENDS } from '../support/backends.js';
import { PUBLIC_URL, startRunnerApp, type RunnerTestApp } from './support.js';

const SECRET = new TextEncoder().encode('test-secret-that-is-long-enough-0123456789');
const pathOf = (url: string) => url.replace(PUBLIC_URL, '');

describe.each(BACKENDS)('who can hear a note’s audio on %s', (kind) => {
  let t: RunnerTestApp;
  beforeAll(async () => {
    t = await startRunnerApp(kind);
  });
  afterAll(() => t.close());

  async function noteWithUrl() {
    const owner = await t.signIn();
    const entry = await t.enter(owner);
    const noteId = await t.sendNote(entry.token);
    const notes = (await t.call(owner, 'GET', `/api/entries/${entry.id}/notes`)).json();
    return { owner, entry, noteId, audioUrl: notes.markers[0].notes[0].audioUrl as string };
  }

  it('should serve the M4A to its runner by session and by the signed URL, with byte ranges', async () => {
    const { owner, noteId, audioUrl } = await noteWithUrl();
    const bySession = await t.call(owner, 'GET', `/api/notes/${noteId}/audio`);
    expect(bySession.statusCode).toBe(200);
    expect(bySession.headers['content-type']).toBe('audio/mp4');
    expect(bySession.body).toBe(`m4a bytes of ${noteId}`);
    const bySignature = await t.app.inject({ url: pathOf(audioUrl) });
    expect(bySignature.statusCode).toBe(200);
    expect(bySignature.body).toBe(`m4a bytes of ${noteId}`);
    const ranged = await t.app.inject({ url: pathOf(audioUrl), headers: { range: 'bytes=0-2' } });
    expect(ranged.statusCode).toBe(206);
    expect(ranged.headers['content-range']).toBe(`bytes 0-2/${`m4a bytes of ${noteId}`.length}`);
    expect(ranged.body).toBe('m4a');
  });

  it('should refuse no session, another runner, a link token, a forged and an expired URL', async () => {
    const { entry, noteId, audioUrl } = await noteWithUrl();
    const stranger = await t.signIn();
    const url = `/api/notes/${noteId}/audio`;
    expect((await t.app.inject({ url })).statusCode).toBe(401);
    expect((await t.call(stranger, 'GET', url)).statusCode).toBe(404);
    expect((await t.app.inject({ url, headers: { authorization: `Bearer ${entry.token}` } })).statusCode).toBe(401);
    expect((await t.app.inject({ url: `/api/r/${entry.token}/notes/${noteId}/audio` })).statusCode).toBe(404);
    const sig = new URL(audioUrl).searchParams;
    const later = Number(sig.get('expires')) + 3600;
    expect((await t.app.inject({ url: `${url}?expires=${later}&sig=${sig.get('sig')}` })).statusCode).toBe(403);
    const expired = signAudio(SECRET, noteId, -1);
    const res = await t.app.inject({ url: `${url}?expires=${expired.expires}&sig=${expired.sig}` });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'audio_link_expired', message: expect.stringMatching(/expired/) });
    // A URL signed for one note opens no other.
    const other = await noteWithUrl();
    expect((await t.app.inject({ url: `/api/notes/${other.noteId}/audio?${sig}` })).statusCode).toBe(403);
  });

  it('should serve a shared note only while it is shared, and only the notes in the share', async () => {
    const { owner, entry, noteId } = await noteWithUrl();
    const unshared = await t.sendNote(entry.token, { marker: 'mi-20' });
    const res = await t.call(owner, 'POST', '/api/shares', { noteId });
    expect(res.statusCode).toBe(201);
    const { id, url } = res.json();
    const token = url.split('/s/')[1];
    expect(url).toBe(`${PUBLIC_URL}/s/${token}`);
    const audio = `/api/s/${token}/notes/${noteId}/audio`;
    expect((await t.app.inject({ url: audio })).statusCode).toBe(200);
    expect((await t.app.inject({ url: `/api/s/${token}/notes/${unshared}/audio` })).statusCode).toBe(404);
    expect((await t.app.inject({ url: `/api/s/${entry.token}/notes/${noteId}/audio` })).statusCode).toBe(404);
    const stranger = await t.signIn();
    expect((await t.call(stranger, 'DELETE', `/api/shares/${id}`)).statusCode).toBe(404);
    expect((await t.call(owner, 'DELETE', `/api/shares/${id}`)).statusCode).toBe(204);
    const gone = await t.app.inject({ url: audio });
    expect(gone.statusCode).toBe(404);
    expect((await t.app.inject({ url: `/api/s/${token}` })).json().error).toBe('share_not_found');
  });
});
