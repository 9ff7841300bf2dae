/**
 * "On Alex's phone": the runner's app downloading a note's audio to its last byte marks the note,
 * once, and its sender's status answer says so. A range short of the end, a download cut off
 * and a keepsake share's download leave it unmarked.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../../contract/runnerApi.js';
import type { BlobStore } from '../../../server/storage/blob-store.js';
import { openBlobStore } from '../../../server/storage/index.js';
import { convertedKey } from '../../../server/storage/keys.js';
import { BACKENDS } from '../support/backends.js';
import { PUBLIC_URL, startRunnerApp, type RunnerTestApp } from './support.js';

/**
 * The keys whose ranged reads stop after the first bytes until the reader goes away: a download a
 * phone is cut off in. (A whole read is the server reading the file's digest, which must end.)
 */
const stalled = new Map<string, () => void>();

function stallingStore(real: BlobStore): BlobStore {
  const get: BlobStore['get'] = async (key, range) => {
    const stopped = stalled.get(key);
    if (!stopped || !range) return real.get(key, range);
    let sent = false;
    return new Readable({
      read() {
        if (!sent) this.push(Buffer.from('m4a'));
        sent = true;
      },
      destroy(err, done) {
        stopped();
        done(err);
      },
    });
  };
  return new Proxy(real, {
    get: (target, prop) => (prop === 'get' ? get : Reflect.get(target, prop, target)),
  });
}

describe.each(BACKENDS)('a note on the runner’s phone on %s', (kind) => {
  let t: RunnerTestApp;
  let origin: string;
  const marks: Promise<void>[] = [];
  /** Once every mark started so far is written: what the notes say then is what the server decided. */
  const marksWritten = async () => void (await Promise.allSettled(marks));
  beforeAll(async () => {
    t = await startRunnerApp(kind, {}, async (backend) => ({ blobs: stallingStore(openBlobStore(backend.config)) }));
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    // Every mark the server starts is kept, so a test can wait until all are written before it reads.
    const mark = t.app.repo.notes.markOnPhone.bind(t.app.repo.notes);
    t.app.repo.notes.markOnPhone = (noteId, at) => {
      const written = mark(noteId, at);
      marks.push(written);
      return written;
    };
  });
  afterAll(() => t.close());

  /** A note from Sam, converted, with its signed audio path and its sender's status path. */
  async function sentNote(session: Session) {
    const entry = await t.enter(session);
    const noteId = await t.sendNote(entry.token);
    const notes = (await t.call(session, 'GET', `/api/entries/${entry.id}/notes`)).json();
    const audioPath = String(notes.markers[0].notes[0].audioUrl).slice(PUBLIC_URL.length);
    const onPhone = async () => (await t.app.inject({ url: `/api/r/${entry.token}/notes/${noteId}/status` })).json().onRunnersPhone;
    return { entry, noteId, audioPath, onPhone };
  }

  const onPhoneAt = async (noteId: string) => {
    await marksWritten();
    return (await t.app.repo.notes.find(noteId))!.onPhoneAt;
  };

  it('should mark a note downloaded in full, keep the first time, and say so to its sender', async () => {
    const session = await t.signIn();
    const { noteId, audioPath, onPhone } = await sentNote(session);
    expect(await onPhone()).toBe(false);
    const whole = await t.app.inject({ url: audioPath });
    expect(whole.statusCode).toBe(200);
    await expect.poll(onPhone).toBe(true);
    const first = await onPhoneAt(noteId);
    expect(first).toMatch(/^\d{4}-\d\d-\d\dT/);

    // A second download, by the session this time, and a later mark: the first time stays.
    expect((await t.call(session, 'GET', `/api/notes/${noteId}/audio`)).statusCode).toBe(200);
    await t.app.repo.notes.markOnPhone(noteId, '2099-10-11T18:00:00.000Z');
    expect(await onPhoneAt(noteId)).toBe(first);
    expect(await onPhone()).toBe(true);
  });

  it('should mark a note whose resumed download reaches the last byte, and not one whose range stops short', async () => {
    const { noteId, audioPath, onPhone } = await sentNote(await t.signIn());
    const start = await t.app.inject({ url: audioPath, headers: { range: 'bytes=0-3' } });
    expect(start.statusCode).toBe(206);
    expect(await onPhoneAt(noteId)).toBeNull();
    expect(await onPhone()).toBe(false);

    const rest = await t.app.inject({ url: audioPath, headers: { range: 'bytes=4-', 'if-range': String(start.headers.etag) } });
    expect(rest.statusCode).toBe(206);
    expect(rest.headers['content-range']).toMatch(/^bytes 4-(\d+)\/(\d+)$/);
    await expect.poll(onPhone).toBe(true);
  });

  it('should not mark a note whose download is cut off', async () => {
    const { noteId, audioPath, onPhone } = await sentNote(await t.signIn());
    const gone = new Promise<void>((resolve) => stalled.set(convertedKey(noteId), resolve));
    await new Promise<void>((resolve, reject) => {
      // The whole file asked as a range, as iOS's player does: it would reach the last byte.
      const req = http.get(`${origin}${audioPath}`, { headers: { range: 'bytes=0-' } }, (res) => {
        expect(res.statusCode).toBe(206);
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
    });
    // The server has let go of the file it was sending: the response ended there.
    await gone;
    stalled.delete(convertedKey(noteId));
    expect(await onPhoneAt(noteId)).toBeNull();
    expect(await onPhone()).toBe(false);

    expect((await t.app.inject({ url: audioPath })).statusCode).toBe(200);
    await expect.poll(onPhone).toBe(true);
  });

  it('should not mark a note its keepsake share sends in full', async () => {
    const session = await t.signIn();
    const { noteId, onPhone } = await sentNote(session);
    const token = String((await t.call(session, 'POST', '/api/shares', { noteId })).json().url).split('/s/')[1];
    const shared = (await t.app.inject({ url: `/api/s/${token}` })).json().notes[0].audioUrl;
    const res = await t.app.inject({ url: shared });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(`m4a bytes of ${noteId}`);
    expect(await onPhoneAt(noteId)).toBeNull();
    expect(await onPhone()).toBe(false);
  });
});
