// Through the generated client (reference-app/api.d.ts, openapi-fetch), as the runner's app calls.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../support/backends.js';
import { PUBLIC_URL, startRunnerApp, type RunnerTestApp } from './support.js';

describe.each(BACKENDS)('entries and links on %s', (kind) => {
  let t: RunnerTestApp;
  beforeAll(async () => {
    t = await startRunnerApp(kind);
  });
  afterAll(() => t.close());

  const recorderStatus = async (token: string) => (await t.api().GET('/api/r/{token}', { params: { path: { token } } })).response.status;

  it('should refuse to enter a race that is over, say so in a sentence, and make no entry', async () => {
    const session = await t.signIn();
    const res = await t.call(session, 'POST', '/api/entries', { raceId: 'nyc-2025', displayName: 'Jordan' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'race_over',
      message: 'The NYC Marathon (2025-11-02) is over, so it can no longer be entered. Choose a race that has not finished yet.',
    });
    expect((await t.call(session, 'GET', '/api/entries')).json().entries).toEqual([]);
  });

  it('should make an entry whose link opens the recorder with the runner’s name', async () => {
    const session = await t.signIn();
    const { data: entry, response } = await t.api(session).POST('/api/entries', { body: { raceId: 'nyc-2099', displayName: '  Jordan  ' } });
    expect(response.status).toBe(201);
    expect(entry).toMatchObject({ race: { id: 'nyc-2099', name: 'NYC Marathon' }, displayName: 'Jordan', linkActive: true });
    expect(entry!.link!.url).toBe(`${PUBLIC_URL}/r/${entry!.link!.token}`);
    const recorder = await t.api().GET('/api/r/{token}', { params: { path: { token: entry!.link!.token } } });
    expect(recorder.data!.runner.displayName).toBe('Jordan');
    const { data: list } = await t.api(session).GET('/api/entries');
    expect(list!.entries).toEqual([expect.objectContaining({ id: entry!.id, linkActive: true })]);
    expect(list!.entries[0]!.link).toBeUndefined();
  });

  it('should store the runner’s name as every friend will read it: NFC, without bidi controls, and refuse one with nothing visible', async () => {
    const session = await t.signIn();
    // A right-to-left override would show friends 'Jordan' spelled backwards or spoof another name.
    const { data, response } = await t.api(session).POST('/api/entries', { body: { raceId: 'nyc-2099', displayName: '\u202EJorda\u0301n\u2066 Lee\u0085' } });
    expect(response.status).toBe(201);
    expect(data!.displayName).toBe('Jord\u00e1n Lee');
    expect((await t.api().GET('/api/r/{token}', { params: { path: { token: data!.link!.token } } })).data!.runner.displayName).toBe('Jord\u00e1n Lee');
    const invisible = await t.api(session).POST('/api/entries', { body: { raceId: 'nyc-2099', displayName: '\u202E\u200F' } });
    expect(invisible.response.status).toBe(400);
    expect(invisible.error).toEqual({ error: 'invalid_display_name', message: expect.stringMatching(/Please enter the name your friends will see/) });
  });

  it('should refuse an unknown race and a blank name with a clear message', async () => {
    const session = await t.signIn();
    const unknown = await t.api(session).POST('/api/entries', { body: { raceId: 'boston-1897', displayName: 'Jo' } });
    expect(unknown.response.status).toBe(400);
    expect(unknown.error!.error).toBe('unknown_race');
    const blank = await t.api(session).POST('/api/entries', { body: { raceId: 'nyc-2099', displayName: '   ' } });
    expect(blank.response.status).toBe(400);
    expect(blank.error!.message).toMatch(/displayName/);
  });

  it('should issue a new link that works and revoke the old one, keeping the notes of both', async () => {
    const session = await t.signIn();
    const entry = await t.enter(session);
    await t.sendNote(entry.token, { from: 'Old link' });
    const path = { id: entry.id };
    const { data: fresh, response } = await t.api(session).POST('/api/entries/{id}/link', { params: { path } });
    expect(response.status).toBe(200);
    expect(fresh!.token).not.toBe(entry.token);
    expect(await recorderStatus(entry.token)).toBe(404);
    expect(await recorderStatus(fresh!.token)).toBe(200);
    await t.sendNote(fresh!.token, { from: 'New link' });
    const { data: notes } = await t.api(session).GET('/api/entries/{id}/notes', { params: { path } });
    expect(notes!.markers[0]!.notes!.map((n) => n.from)).toEqual(['Old link', 'New link']);
  });

  it('should say how many phones follow the live link, and start a new link with none', async () => {
    const session = await t.signIn();
    const entry = await t.enter(session);
    const path = { id: entry.id };
    const phones = async () => (await t.api(session).GET('/api/entries')).data!.entries.find((e) => e.id === entry.id)?.linkPhones;
    expect(await phones()).toBe(0);
    // Three phones open the link (the client keeps no cookie: each request is a phone of its own).
    for (let i = 0; i < 3; i++) expect(await recorderStatus(entry.token)).toBe(200);
    expect(await phones()).toBe(3);
    const { data: fresh } = await t.api(session).POST('/api/entries/{id}/link', { params: { path } });
    expect(await phones()).toBe(0);
    expect(await recorderStatus(fresh!.token)).toBe(200);
    expect(await phones()).toBe(1);
    await t.api(session).DELETE('/api/entries/{id}/link', { params: { path } });
    expect(await phones()).toBe(0);
  });

  it('should revoke the link on DELETE so friends see it no longer works', async () => {
    const session = await t.signIn();
    const entry = await t.enter(session);
    expect((await t.api(session).DELETE('/api/entries/{id}/link', { params: { path: { id: entry.id } } })).response.status).toBe(204);
    expect(await recorderStatus(entry.token)).toBe(404);
    const { data: list } = await t.api(session).GET('/api/entries');
    expect(list!.entries[0]!.linkActive).toBe(false);
  });

  it('should not let another runner touch an entry', async () => {
    const owner = await t.signIn();
    const stranger = t.api(await t.signIn());
    const entry = await t.enter(owner);
    const params = { path: { id: entry.id } };
    for (const res of [
      await stranger.POST('/api/entries/{id}/link', { params }),
      await stranger.DELETE('/api/entries/{id}/link', { params }),
      await stranger.GET('/api/entries/{id}/notes', { params }),
    ]) {
      expect(res.response.status, res.response.url).toBe(404);
      expect(res.error!.error).toBe('entry_not_found');
    }
    expect(await recorderStatus(entry.token)).toBe(200);
  });
});
