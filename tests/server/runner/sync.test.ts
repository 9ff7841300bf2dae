import { UPCOMING } from '../support/races.js';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntryNotes, Session } from '../../../contract/runnerApi.js';
import { convertedKey } from '../../../server/storage/keys.js';
import { encodeCursor } from '../../../server/sync/cursor.js';
import { HOLD_SPREAD } from '../../../server/sync/note-changes.js';
import { BACKENDS } from '../support/backends.js';
import { fakeWebm, putNote } from '../support/uploads.js';
import { startRunnerApp, type RunnerTestApp } from './support.js';

type Query = Record<string, string | number>;

/** The note ids of a list answer, marker by marker. */
const idsOf = (body: EntryNotes) => body.markers.flatMap((m) => (m.notes ?? []).map((n) => n.id));

describe.each(BACKENDS)('notes sync for the runner’s app on %s', (kind) => {
  let t: RunnerTestApp;
  beforeAll(async () => {
    t = await startRunnerApp(kind);
  });
  afterAll(() => t.close());

  const list = (session: Session, entryId: string, query: Query = {}, headers: Record<string, string> = {}) =>
    t.app.inject({
      url: `/api/entries/${entryId}/notes?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}`,
      headers: { authorization: `Bearer ${session.accessToken}`, ...headers },
    });
  const convert = async (noteId: string) => {
    const key = convertedKey(noteId);
    await t.app.blobs.put(key, Readable.from([Buffer.from(`m4a of ${noteId}`)]), { maxBytes: 1e6, contentType: 'audio/mp4' });
    expect(await t.app.repo.jobs.markConverted(noteId, key, 4200)).toBe(true);
  };

  it('should answer 304 to the ETag it gave until a note is added, converted or removed', async () => {
    const session = await t.signIn();
    const entry = await t.enter(session);
    const first = await list(session, entry.id);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    const again = await list(session, entry.id, {}, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
    expect((await list(session, entry.id, {}, { 'if-none-match': `"other", W/${etag}` })).statusCode).toBe(304);

    const seen = [etag];
    const changedSince = async () => {
      const res = await list(session, entry.id, {}, { 'if-none-match': seen.at(-1)! });
      expect(res.statusCode).toBe(200);
      expect(seen).not.toContain(res.headers.etag);
      seen.push(res.headers.etag as string);
    };
    const noteId = await t.sendNote(entry.token, { convert: false });
    await changedSince();
    await convert(noteId);
    await changedSince();
    expect((await t.call(session, 'DELETE', `/api/notes/${noteId}`)).statusCode).toBe(204);
    await changedSince();
    expect((await list(session, entry.id, {}, { 'if-none-match': seen.at(-1)! })).statusCode).toBe(304);
  });

  it('should answer after=<cursor> with only the notes added, converted or removed since, and the next cursor', async () => {
    const session = await t.signIn();
    const entry = await t.enter(session);
    const old = await t.sendNote(entry.token, { marker: 'mi-3' });
    const start = (await list(session, entry.id)).json() as EntryNotes;
    expect(idsOf(start)).toEqual([old]);
    expect(start.removed).toBeUndefined();

    const added = await t.sendNote(entry.token, { marker: 'mi-20', convert: false });
    const afterAdd = (await list(session, entry.id, { after: start.cursor })).json() as EntryNotes;
    expect(afterAdd).toMatchObject({
      entryId: entry.id,
      removed: [],
      markers: [{ marker: 'mi-20', label: 'Mile 20', count: 1, notes: [{ id: added, status: 'received', audioUrl: null }] }],
    });

    const quiet = (await list(session, entry.id, { after: afterAdd.cursor })).json() as EntryNotes;
    expect(quiet).toEqual({ entryId: entry.id, markers: [], removed: [], cursor: afterAdd.cursor, raceStartsAt: '2099-10-11T12:30:00.000Z' });

    await convert(added);
    const afterConvert = (await list(session, entry.id, { after: afterAdd.cursor })).json() as EntryNotes;
    expect(idsOf(afterConvert)).toEqual([added]);
    expect(afterConvert.markers[0]!.notes![0]).toMatchObject({ status: 'converted', durationMs: 4200 });
    expect(afterConvert.markers[0]!.notes![0]!.audioUrl).toContain(`/api/notes/${added}/audio?expires=`);

    expect((await t.call(session, 'DELETE', `/api/notes/${old}`)).statusCode).toBe(204);
    const afterRemove = (await list(session, entry.id, { after: afterConvert.cursor })).json() as EntryNotes;
    expect(afterRemove).toMatchObject({ markers: [], removed: [old] });
    // From the start: the note added and converted since, once, as it is now; the removed one by id.
    const all = (await list(session, entry.id, { after: start.cursor })).json() as EntryNotes;
    expect(idsOf(all)).toEqual([added]);
    expect(all.removed).toEqual([old]);
    expect(all.cursor).toBe(afterRemove.cursor);
    expect((await list(session, entry.id)).json().cursor).toBe(afterRemove.cursor);
  });

  it('should refuse a cursor that is not one of this entry’s, and wait without a cursor, with a code and a sentence', async () => {
    const session = await t.signIn();
    const entry = await t.enter(session);
    const other = await t.enter(session, UPCOMING.nyc.id);
    await t.sendNote(entry.token);
    const { cursor } = (await list(session, entry.id)).json() as EntryNotes;
    const [seq, check] = cursor.split('.') as [string, string];
    const refused = {
      'made up': 'zzz',
      'another entry’s': (await list(session, other.id)).json().cursor,
      'with its number changed': `${(parseInt(seq, 36) - 1).toString(36)}.${check}`,
      'from the future': encodeCursor(entry.id, 1_000),
      'with a leading zero': `0${cursor}`,
    };
    for (const [what, after] of Object.entries(refused)) {
      const res = await list(session, entry.id, { after, wait: 5 });
      expect(res.statusCode, what).toBe(400);
      expect(res.json(), what).toEqual({ error: 'invalid_cursor', message: expect.stringContaining('Fetch the whole list again') });
    }
    const noCursor = await list(session, entry.id, { wait: 5 });
    expect(noCursor.statusCode).toBe(400);
    expect(noCursor.json().error).toBe('cursor_required');
    const tooLong = await list(session, entry.id, { after: cursor, wait: 31 });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json()).toMatchObject({ error: 'bad_request', message: expect.stringContaining('wait') });
    expect(t.app.noteChanges.held()).toBe(0);
  });

  it('should hold wait=<s> until a note of the entry becomes playable and answer within 2 s of it', async () => {
    const session = await t.signIn();
    const entry = await t.enter(session);
    const elsewhere = await t.enter(session, UPCOMING.nyc.id);
    const noteId = await t.sendNote(entry.token, { convert: false });
    const { cursor } = (await list(session, entry.id)).json() as EntryNotes;
    let answeredAt = 0;
    const held = list(session, entry.id, { after: cursor, wait: 30 }).then((res) => {
      answeredAt = Date.now();
      return res;
    });
    await expect.poll(() => t.app.noteChanges.held(), { timeout: 10_000, interval: 10 }).toBe(1);
    // Another entry's note does not answer it.
    await t.sendNote(elsewhere.token);
    await convert(noteId);
    const convertedAt = Date.now();
    const res = await held;
    expect(res.statusCode).toBe(200);
    expect(answeredAt - convertedAt).toBeLessThan(2_000);
    const body = res.json() as EntryNotes;
    expect(idsOf(body)).toEqual([noteId]);
    expect(body.markers[0]!.notes![0]!.status).toBe('converted');
    expect(body.cursor).not.toBe(cursor);
    expect(t.app.noteChanges.held()).toBe(0);
  });

  it('should hold until=playable through a note only received, and answer when it is converted', async () => {
    const session = await t.signIn();
    const entry = await t.enter(session);
    const { cursor } = (await list(session, entry.id)).json() as EntryNotes;
    const plain = list(session, entry.id, { after: cursor, wait: 30 });
    let answered = false;
    const playable = list(session, entry.id, { after: cursor, wait: 30, until: 'playable' }).then((res) => {
      answered = true;
      return res;
    });
    await expect.poll(() => t.app.noteChanges.held(), { timeout: 10_000, interval: 10 }).toBe(2);
    const noteId = await t.sendNote(entry.token, { convert: false });
    // The same change woke both: the plain one answers with the note received, the other holds again.
    expect(idsOf((await plain).json() as EntryNotes)).toEqual([noteId]);
    await expect.poll(() => t.app.noteChanges.held(), { timeout: 10_000, interval: 10 }).toBe(1);
    expect(answered).toBe(false);
    await convert(noteId);
    const convertedAt = Date.now();
    const body = (await playable).json() as EntryNotes;
    expect(Date.now() - convertedAt).toBeLessThan(2_000);
    expect(body.markers.flatMap((m) => m.notes ?? [])).toMatchObject([{ id: noteId, status: 'converted' }]);
    expect(t.app.noteChanges.held()).toBe(0);
  });

  it("should end a held request with what is there when its wait runs out (in the wait's last fifth)", async () => {
    const session = await t.signIn();
    const entry = await t.enter(session);
    const { cursor } = (await list(session, entry.id)).json() as EntryNotes;
    const started = Date.now();
    const res = await list(session, entry.id, { after: cursor, wait: 1 });
    // An empty hold ends at a random moment in the last fifth of its wait (server/sync/note-changes.ts spreadHold).
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000 * (1 - HOLD_SPREAD) - 50);
    expect(res.json()).toEqual({ entryId: entry.id, markers: [], removed: [], cursor, raceStartsAt: '2099-10-11T12:30:00.000Z' });
    expect(t.app.noteChanges.held()).toBe(0);
  });

  it('should remove a note: gone from every list and share, its files deleted, its audio refused, again 204, another runner refused', async () => {
    const owner = await t.signIn();
    const stranger = await t.signIn();
    const entry = await t.enter(owner);
    const noteId = await t.sendNote(entry.token);
    const kept = await t.sendNote(entry.token);
    const before = (await list(owner, entry.id)).json() as EntryNotes;
    const audioUrl = before.markers[0]!.notes!.find((n) => n.id === noteId)!.audioUrl!;
    const signedPath = audioUrl.replace(/^https:\/\/[^/]+/, '');
    expect((await t.app.inject({ url: signedPath })).statusCode).toBe(200);
    const note = (await t.app.repo.notes.find(noteId))!;
    const files = [note.originalKey, note.convertedKey!];
    for (const key of files) expect(await t.app.blobs.exists(key)).toBe(true);
    const entryShare = (await t.call(owner, 'POST', '/api/shares', { entryId: entry.id })).json().url.split('/s/')[1];
    const noteShare = (await t.call(owner, 'POST', '/api/shares', { noteId })).json().url.split('/s/')[1];
    expect((await t.app.inject({ url: `/api/s/${entryShare}` })).json().notes.map((n: { id: string }) => n.id)).toEqual([noteId, kept]);

    for (const [who, id] of [
      [stranger, noteId],
      [owner, '00000000-0000-4000-8000-000000000000'],
    ] as const) {
      const refused = await t.call(who, 'DELETE', `/api/notes/${id}`);
      expect(refused.statusCode).toBe(404);
      expect(refused.json()).toEqual({ error: 'note_not_found', message: 'This note was not found.' });
    }
    expect(await t.app.repo.notes.find(noteId)).toBeDefined();
    expect((await t.call(undefined, 'DELETE', `/api/notes/${noteId}`)).statusCode).toBe(401);

    const removed = await t.call(owner, 'DELETE', `/api/notes/${noteId}`);
    expect(removed.statusCode).toBe(204);
    expect(idsOf((await list(owner, entry.id)).json())).toEqual([kept]);
    for (const key of files) expect(await t.app.blobs.exists(key)).toBe(false);
    expect((await t.app.inject({ url: signedPath })).statusCode).toBe(404);
    expect((await t.call(owner, 'GET', `/api/notes/${noteId}/audio`)).statusCode).toBe(404);
    expect((await t.call(owner, 'POST', `/api/notes/${noteId}/played`, { playedAt: new Date().toISOString(), marker: 'mi-13' })).statusCode).toBe(404);
    expect((await t.app.inject({ url: `/api/s/${entryShare}` })).json().notes.map((n: { id: string }) => n.id)).toEqual([kept]);
    expect((await t.app.inject({ url: `/api/s/${entryShare}/notes/${noteId}/audio` })).statusCode).toBe(404);
    expect((await t.app.inject({ url: `/api/s/${noteShare}` })).statusCode).toBe(404);
    expect((await t.app.inject({ url: `/api/r/${entry.token}/notes/${noteId}/status` })).statusCode).toBe(404);

    // The sender's phone sending it again (its answer was lost) does not bring it back.
    const resent = await putNote(t.app, { token: entry.token, noteId, body: fakeWebm() });
    expect(resent.statusCode).toBe(410);
    expect(resent.json()).toEqual({ error: 'note_removed', message: 'The runner removed this note, so it will not be sent again.' });
    expect(await t.app.repo.notes.find(noteId)).toBeUndefined();
    expect(idsOf((await list(owner, entry.id)).json())).toEqual([kept]);

    expect((await t.call(owner, 'DELETE', `/api/notes/${noteId}`)).statusCode).toBe(204);
    expect((await t.call(stranger, 'DELETE', `/api/notes/${noteId}`)).statusCode).toBe(404);
    expect(await t.app.blobs.exists(convertedKey(kept))).toBe(true);
  });
});
