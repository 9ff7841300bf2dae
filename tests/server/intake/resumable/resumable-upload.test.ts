import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkIdOf } from '../../../../server/links.js';
import { BACKENDS } from '../../support/backends.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { append, creation, offsetOf, send, uploadPathOf, type RawRequest } from '../../support/resumable.js';
import { startS3, type TestS3 } from '../../support/s3.js';
import { digestOf, fakeWebm, makeLink, putNote, sha256Hex } from '../../support/uploads.js';

let s3: TestS3;
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(() => s3.close());

/** A note of realistic length: about 60 s of speech at 3 KB/s, every byte telling where it is. */
const speechLike = (size = 190_000) => {
  const body = fakeWebm(size);
  for (let i = 64; i + 4 <= size; i += 4) body.writeUInt32BE(i, i); // after the WebM header the sniffer reads
  return body;
};

const combos = BACKENDS.flatMap((db) => (['disk', 'S3'] as const).map((blobs) => [db, blobs] as const));

describe.each(combos)('resumable note uploads on %s with audio on %s', (db, blobsKind) => {
  let t: TestApp;
  let base: string;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp(db, blobsKind === 'S3' ? s3.env : {});
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    token = await makeLink(t.app.repo);
  });
  afterAll(() => t.close());

  /**
   * A request cut short, then the client's HEAD until the server holds more than before it. The
   * server may keep less than was sent (bytes still in its buffers at the cut); the client
   * resumes from what it reports, so the tests do too.
   */
  const cut = async (request: RawRequest, tok = token): Promise<number> => {
    const from = Number(request.headers['upload-offset'] ?? 0);
    await send(base, request);
    const noteId = request.path.split('/')[5]!.split('?')[0]!;
    const deadline = Date.now() + 5_000;
    for (;;) {
      const head = await offsetOf(base, tok, noteId);
      const offset = Number(head.headers['upload-offset'] ?? -1);
      if (head.status === 204 && offset > from) {
        expect(offset).toBeLessThanOrEqual(from + request.cutAfter!);
        return offset;
      }
      if (Date.now() > deadline) throw new Error(`the server holds nothing more of the cut upload (HEAD ${head.status}, offset ${offset})`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  const storedBytes = async (noteId: string) => {
    const note = await t.app.repo.notes.find(noteId);
    return note && buffer(await t.app.blobs.get(note.originalKey));
  };

  it('should take a whole note in one creation request, as the plain PUT does', async () => {
    const body = speechLike(30_000);
    const noteId = randomUUID();
    const res = await send(base, creation(token, noteId, body));
    expect(res.status).toBe(201);
    expect(res.headers['upload-complete']).toBe('?1');
    expect(JSON.parse(res.body)).toMatchObject({ id: noteId, bytes: body.length, sha256: sha256Hex(body) });
    expect(await storedBytes(noteId)).toEqual(body);
    expect(await t.app.repo.uploads.find(noteId)).toBeUndefined();
  });

  it('should resume after cuts at several offsets and store the note intact', async () => {
    const body = speechLike();
    const noteId = randomUUID();
    let held = await cut(creation(token, noteId, body, 100));
    const head = await offsetOf(base, token, noteId);
    expect(head.headers).toMatchObject({
      'upload-offset': String(held),
      'upload-complete': '?0',
      'upload-length': String(body.length),
      'cache-control': 'no-store',
    });
    expect(head.headers['upload-limit']).toMatch(/max-size=\d+/);

    for (const sent of [40_000, 100_000]) held = await cut(append(token, noteId, body, held, { cutAfter: sent }));

    const done = await send(base, append(token, noteId, body, held));
    expect(done.status).toBe(201);
    expect(done.headers['upload-complete']).toBe('?1');
    expect(JSON.parse(done.body)).toMatchObject({ id: noteId, bytes: body.length, sha256: sha256Hex(body) });
    expect(await storedBytes(noteId)).toEqual(body);
    expect(await t.app.repo.uploads.find(noteId)).toBeUndefined();
    expect(await t.app.repo.uploads.parts(noteId)).toEqual([]);
    const after = await offsetOf(base, token, noteId);
    expect(after.headers).toMatchObject({ 'upload-offset': String(body.length), 'upload-complete': '?1' });
  });

  it('should answer a HEAD asked while a cut creation is still being checked with what it keeps, not with no upload', async () => {
    const body = speechLike(40_000);
    const noteId = randomUUID();
    // The server still checking the note (a busy database) when the phone, its creation cut, asks HEAD.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let checking!: () => void;
    const checked = new Promise<void>((resolve) => (checking = resolve));
    const find = t.app.repo.notes.find;
    t.app.repo.notes.find = async (id) => {
      if (id === noteId) {
        checking();
        await gate;
      }
      return find(id);
    };
    // The HEAD must look for the upload only once the creation holds its lease: one that takes the lease
    // first reports 0 while the creation then stores what arrived (on PostgreSQL it did, now and then).
    const inHead = new AsyncLocalStorage<true>();
    const { lease, find: findUpload } = t.app.repo.uploads;
    let creationLeased = false;
    const headLookups: boolean[] = [];
    t.app.repo.uploads.lease = async (id, ...rest) => {
      const taken = await lease(id, ...rest);
      if (id === noteId && taken && !inHead.getStore()) creationLeased = true;
      return taken;
    };
    t.app.repo.uploads.find = (id) => {
      if (id === noteId && inHead.getStore()) headLookups.push(creationLeased);
      return findUpload(id);
    };
    try {
      const creationDone = send(base, creation(token, noteId, body, 8_000));
      await checked;
      // Asked while the creation is still being checked: a 404 now would restart the note from byte 0.
      const uploads = t.app.uploads!;
      const state = uploads.state;
      let asked!: () => void;
      const headArrived = new Promise<void>((resolve) => (asked = resolve));
      uploads.state = (...args) => {
        asked();
        return inHead.run(true, () => state(...args));
      };
      const head = offsetOf(base, token, noteId);
      await headArrived;
      uploads.state = state;
      release();
      const held = await head;
      expect(held.status).toBe(204);
      expect(Number(held.headers['upload-offset'])).toBeGreaterThan(0);
      expect(headLookups.length).toBeGreaterThan(0);
      expect(headLookups, 'the HEAD looked for the upload before the creation held its lease').not.toContain(false);
      await creationDone;
    } finally {
      t.app.repo.notes.find = find;
      Object.assign(t.app.repo.uploads, { lease, find: findUpload });
      release();
    }
  });

  it('should skip what it holds when the whole creation request is sent again', async () => {
    const body = speechLike(80_000);
    const noteId = randomUUID();
    await cut(creation(token, noteId, body, 30_000));
    const again = await send(base, creation(token, noteId, body));
    expect(again.status).toBe(201);
    expect(await storedBytes(noteId)).toEqual(body);
  });

  it('should answer a wrong offset with 409 and the offset it holds, and change nothing', async () => {
    const body = speechLike(50_000);
    const noteId = randomUUID();
    const held = await cut(creation(token, noteId, body, 20_000));
    for (const wrong of [0, held - 1, held + 1]) {
      const res = await send(base, append(token, noteId, body, wrong));
      expect(res.status).toBe(409);
      expect(res.headers['upload-offset']).toBe(String(held));
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(res.body)).toMatchObject({
        type: 'https://iana.org/assignments/http-problem-types#mismatching-upload-offset',
        'expected-offset': held,
        'provided-offset': wrong,
      });
    }
    expect((await offsetOf(base, token, noteId)).headers['upload-offset']).toBe(String(held));
  });

  it('should refuse appends after completion and appends that are not partial uploads', async () => {
    const body = speechLike(20_000);
    const noteId = randomUUID();
    const held = await cut(creation(token, noteId, body, 5_000));
    const patch = append(token, noteId, body, held);
    expect((await send(base, { ...patch, headers: { ...patch.headers, 'content-type': 'audio/webm' } })).status).toBe(415);
    expect((await send(base, patch)).status).toBe(201);
    const late = await send(base, patch);
    expect(late.status).toBe(400);
    expect(JSON.parse(late.body).type).toBe('https://iana.org/assignments/http-problem-types#completed-upload');
  });

  it('should refuse an append whose upload headers are missing or malformed, and change nothing', async () => {
    const body = speechLike(20_000);
    const noteId = randomUUID();
    const held = await cut(creation(token, noteId, body, 5_000));
    const patch = append(token, noteId, body, held);
    for (const headers of [
      { 'upload-offset': undefined },
      { 'upload-complete': undefined },
      { 'upload-offset': '12abc' },
      { 'upload-complete': 'yes' },
      { 'upload-length': '-1' },
    ]) {
      const res = await send(base, { ...patch, headers: JSON.parse(JSON.stringify({ ...patch.headers, ...headers })) as Record<string, string> });
      expect(res.status, JSON.stringify(headers)).toBe(400);
      expect(JSON.parse(res.body), JSON.stringify(headers)).toMatchObject({
        error: 'bad_request',
        message: expect.stringMatching(/Upload-Offset|upload-length/),
      });
    }
    expect((await offsetOf(base, token, noteId)).headers['upload-offset']).toBe(String(held));
  });

  it('should refuse an append past the announced length', async () => {
    const body = speechLike(20_000);
    const noteId = randomUUID();
    const held = await cut(creation(token, noteId, body, 5_000));
    const longer = Buffer.concat([body, Buffer.alloc(10, 1)]);
    const res = await send(base, append(token, noteId, longer, held));
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).type).toBe('https://iana.org/assignments/http-problem-types#inconsistent-upload-length');
    expect((await offsetOf(base, token, noteId)).headers['upload-offset']).toBe(String(held));
  });

  it('should land one intact note when several resumes of it race', async () => {
    const body = speechLike(120_000);
    const noteId = randomUUID();
    const held = await cut(creation(token, noteId, body, 10_000));
    const answers = await Promise.all(Array.from({ length: 4 }, () => send(base, append(token, noteId, body, held))));
    expect(answers.filter((a) => a.status === 201).length).toBeGreaterThanOrEqual(1);
    for (const a of answers) expect([201, 400, 409, 503]).toContain(a.status);
    expect(await storedBytes(noteId)).toEqual(body);
    expect((await t.app.repo.notes.ofLink(linkIdOf(token))).filter((n) => n.id === noteId)).toHaveLength(1);
  });

  it('should refuse a note whose bytes do not match its digest once complete, and keep nothing', async () => {
    const body = speechLike(40_000);
    const noteId = randomUUID();
    const other = digestOf(speechLike(40_001));
    const held = await cut(creation(token, noteId, body, 15_000, other));
    const res = await send(base, append(token, noteId, body, held));
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error).toBe('digest_mismatch');
    expect(res.headers['upload-complete']).toBe('?1');
    expect(await t.app.repo.notes.find(noteId)).toBeUndefined();
    expect(await t.app.repo.uploads.find(noteId)).toBeUndefined();
  });

  it('should end as one note when a resumed upload and a whole PUT of it both arrive', async () => {
    const body = speechLike(60_000);
    const noteId = randomUUID();
    const held = await cut(creation(token, noteId, body, 25_000));
    const whole = await putNote(t.app, { token, body, noteId });
    expect(whole.statusCode).toBe(201);
    const resumed = await send(base, append(token, noteId, body, held));
    expect([201, 400]).toContain(resumed.status);
    expect((await t.app.repo.notes.ofLink(linkIdOf(token))).filter((n) => n.id === noteId)).toHaveLength(1);
    expect(await storedBytes(noteId)).toEqual(body);
  });

  it('should answer 409 to a resumable upload of an id that holds other bytes', async () => {
    const noteId = randomUUID();
    expect((await putNote(t.app, { token, body: speechLike(10_000), noteId })).statusCode).toBe(201);
    const res = await send(base, creation(token, noteId, speechLike(12_000)));
    expect(res.status).toBe(409);
    expect(JSON.parse(res.body).error).toBe('note_conflict');
  });

  it('should remove an unfinished upload and its parts once it expires', async () => {
    const body = speechLike(50_000);
    const noteId = randomUUID();
    await cut(creation(token, noteId, body, 20_000));
    const parts = await t.app.repo.uploads.parts(noteId);
    expect(parts).toHaveLength(1);
    expect(await t.app.uploads!.sweep(Date.now())).toBe(0);
    expect(await t.app.uploads!.sweep(Date.now() + 25 * 60 * 60 * 1000)).toBeGreaterThanOrEqual(1);
    expect(await t.app.repo.uploads.find(noteId)).toBeUndefined();
    expect(await t.app.blobs.exists(parts[0]!.blobKey)).toBe(false);
    expect((await offsetOf(base, token, noteId)).status).toBe(404);
  });

  it('should cancel an upload on DELETE', async () => {
    const body = speechLike(30_000);
    const noteId = randomUUID();
    await cut(creation(token, noteId, body, 10_000));
    const parts = await t.app.repo.uploads.parts(noteId);
    expect((await send(base, { method: 'DELETE', path: uploadPathOf(token, noteId), headers: {} })).status).toBe(204);
    expect(await t.app.blobs.exists(parts[0]!.blobKey)).toBe(false);
    expect((await offsetOf(base, token, noteId)).status).toBe(404);
  });

  it('should answer 404 for the upload of a revoked link or of another link', async () => {
    const tok = await makeLink(t.app.repo);
    const body = speechLike(30_000);
    const noteId = randomUUID();
    const held = await cut(creation(tok, noteId, body, 10_000), tok);
    expect((await offsetOf(base, token, noteId)).status).toBe(404);
    expect((await send(base, append(token, noteId, body, held))).status).toBe(404);
    await t.app.repo.links.revoke(linkIdOf(tok), new Date().toISOString());
    expect((await offsetOf(base, tok, noteId)).status).toBe(404);
    expect((await send(base, append(tok, noteId, body, held))).status).toBe(404);
  });
});

describe.each(BACKENDS)('with RESUMABLE_UPLOADS=off on %s', (db) => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await startTestApp(db, { RESUMABLE_UPLOADS: 'off' });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => t.close());

  it('should treat a creation request as a whole PUT and have no upload resource', async () => {
    const token = await makeLink(t.app.repo);
    const body = speechLike(30_000);
    const noteId = randomUUID();
    await send(base, creation(token, noteId, body, 10_000));
    expect((await offsetOf(base, token, noteId)).status).toBe(404);
    const res = await send(base, creation(token, noteId, body));
    expect(res.status).toBe(201);
    expect(res.headers['upload-complete']).toBeUndefined();
    expect((await t.app.repo.notes.find(noteId))?.sha256).toBe(sha256Hex(body));
  });
});

describe.each(BACKENDS)('resumable uploads and the link quota on %s', (db) => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await startTestApp(db, { LINK_MAX_NOTES: '2' });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => t.close());

  /** Cuts a creation request and waits until the server holds some of it: an unfinished upload. */
  const unfinished = async (token: string, noteId: string, body: Buffer) => {
    await send(base, creation(token, noteId, body, 10_000));
    const deadline = Date.now() + 5_000;
    for (;;) {
      const head = await offsetOf(base, token, noteId);
      if (head.status === 204 && Number(head.headers['upload-offset']) > 0) return Number(head.headers['upload-offset']);
      if (Date.now() > deadline) throw new Error(`no unfinished upload of ${noteId} (HEAD ${head.status})`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it('should count an unfinished upload against the link, and let it finish when the link is full', async () => {
    const token = await makeLink(t.app.repo);
    const first = speechLike(20_000);
    expect((await send(base, creation(token, randomUUID(), first))).status).toBe(201);
    const body = speechLike(40_000);
    const noteId = randomUUID();
    const held = await unfinished(token, noteId, body);

    // One stored, one unfinished: the link of two has no room for a third note.
    const third = await putNote(t.app, { token, body: speechLike(20_000) });
    expect(third.statusCode).toBe(429);
    expect(third.json()).toMatchObject({ error: 'link_full' });

    // The unfinished upload held its room: it completes.
    const done = await send(base, append(token, noteId, body, held));
    expect(done.status).toBe(201);
    expect(await t.app.repo.notes.ofLink(linkIdOf(token))).toHaveLength(2);
  });

  it('should store the sender name of a resumed upload without bidi characters', async () => {
    const token = await makeLink(t.app.repo);
    const body = speechLike(20_000);
    const noteId = randomUUID();
    const request = creation(token, noteId, body);
    request.path = request.path.replace('from=Sam', `from=${encodeURIComponent('Sa\u202Em')}`);
    expect((await send(base, request)).status).toBe(201);
    expect((await t.app.repo.notes.find(noteId))?.from).toBe('Sam');
  });
});
