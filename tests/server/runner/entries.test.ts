import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../support/backends.js';
import { PUBLIC_URL, startRunnerApp, type RunnerTestApp } from './support.js';

describe.each(BACKENDS)('entries and links on %s', (kind) => {
  let t: RunnerTestApp;
  beforeAll(async () => {
    t = await startRunnerApp(kind);
  });
  afterAll(() => t.close());

  it('should refuse to enter a race that is over, say so in a sentence, and make no entry', async () => {
    const session = await t.signIn();
    const res = await t.call(session, 'POST', '/api/entries', { raceId: 'nyc-2025', displayName: 'Jordan' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'race_over', message: 'The NYC Marathon (2025-11-02) is over, so it can no longer be entered. Choose a race that has not finished yet.',
    });
    expect((await t.call(session, 'GET', '/api/entries')).json().entries).toEqual([]);
  });

  it('should make an entry whose link opens the recorder with the runner’s name', async () => {
    const session = await t.signIn();
    const res = await t.call(session, 'POST', '/api/entries', { raceId: 'nyc-2099', displayName: '  Jordan  ' });
    expect(res.statusCode).toBe(201);
    const entry = res.json();
    expect(entry).toMatchObject({ race: { id: 'nyc-2099', name: 'NYC Marathon' }, displayName: 'Jordan', linkActive: true });
    expect(entry.link.url).toBe(`${PUBLIC_URL}/r/${entry.link.token}`);
    const recorder = await t.app.inject({ url: `/api/r/${entry.link.token}` });
    expect(recorder.json().runner.displayName).toBe('Jordan');
    const list = (await t.call(session, 'GET', '/api/entries')).json();
    expect(list.entries).toEqual([expect.objectContaining({ id: entry.id, linkActive: true })]);
    expect(list.entries[0].link).toBeUndefined();
  });

  it('should store the runner’s name as every friend will read it: NFC, without bidi controls, and refuse one with nothing visible', async () => {
    const session = await t.signIn();
    // A right-to-left override would show friends 'Jordan' spelled backwards or spoof another name.
    const res = await t.call(session, 'POST', '/api/entries', { raceId: 'nyc-2099', displayName: '\u202EJorda\u0301n\u2066 Lee\u0085' });
    expect(res.statusCode).toBe(201);
    expect(res.json().displayName).toBe('Jord\u00e1n Lee');
    expect((await t.app.inject({ url: `/api/r/${res.json().link.token}` })).json().runner.displayName).toBe('Jord\u00e1n Lee');
    const invisible = await t.call(session, 'POST', '/api/entries', { raceId: 'nyc-2099', displayName: '\u202E\u200F' });
    expect(invisible.statusCode).toBe(400);
    expect(invisible.json()).toEqual({ error: 'invalid_display_name', message: expect.stringMatching(/Please enter the name your friends will see/) });
  });

  it('should refuse an unknown race and a blank name with a clear message', async () => {
    const session = await t.signIn();
    const unknown = await t.call(session, 'POST', '/api/entries', { raceId: 'boston-1897', displayName: 'Jo' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error).toBe('unknown_race');
    const blank = await t.call(session, 'POST', '/api/entries', { raceId: 'nyc-2099', displayName: '   ' });
    expect(blank.statusCode).toBe(400);
    expect(blank.json().message).toMatch(/displayName/);
  });

  it('should issue a new link that works and revoke the old one, keeping the notes of both', async () => {
    const session = await t.signIn();
    const entry = await t.enter(session);
    await t.sendNote(entry.token, { from: 'Old link' });
    const res = await t.call(session, 'POST', `/api/entries/${entry.id}/link`);
    expect(res.statusCode).toBe(200);
    const fresh = res.json();
    expect(fresh.token).not.toBe(entry.token);
    expect((await t.app.inject({ url: `/api/r/${entry.token}` })).statusCode).toBe(404);
    expect((await t.app.inject({ url: `/api/r/${fresh.token}` })).statusCode).toBe(200);
    await t.sendNote(fresh.token, { from: 'New link' });
    const notes = (await t.call(session, 'GET', `/api/entries/${entry.id}/notes`)).json();
    expect(notes.markers[0].notes.map((n: { from: string }) => n.from)).toEqual(['Old link', 'New link']);
  });

  it('should revoke the link on DELETE so friends see it no longer works', async () => {
    const session = await t.signIn();
    const entry = await t.enter(session);
    expect((await t.call(session, 'DELETE', `/api/entries/${entry.id}/link`)).statusCode).toBe(204);
    expect((await t.app.inject({ url: `/api/r/${entry.token}` })).statusCode).toBe(404);
    const list = (await t.call(session, 'GET', '/api/entries')).json();
    expect(list.entries[0].linkActive).toBe(false);
  });

  it('should not let another runner touch an entry', async () => {
    const owner = await t.signIn();
    const stranger = await t.signIn();
    const entry = await t.enter(owner);
    for (const [method, url] of [['POST', `/api/entries/${entry.id}/link`], ['DELETE', `/api/entries/${entry.id}/link`], ['GET', `/api/entries/${entry.id}/notes`]] as const) {
      const res = await t.call(stranger, method, url);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error).toBe('entry_not_found');
    }
    expect((await t.app.inject({ url: `/api/r/${entry.token}` })).statusCode).toBe(200);
  });
});
