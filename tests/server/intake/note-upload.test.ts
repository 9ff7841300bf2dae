import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_NOTE_BYTES } from '../../../contract/limits.js';
import { linkIdOf } from '../../../server/links.js';
import { BACKENDS } from '../support/backends.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { uploadTo } from '../support/remote-uploads.js';
import { digestOf, fakeWebm, makeLink, putNote, sha256Hex } from '../support/uploads.js';

describe.each(BACKENDS)('PUT /api/r/:token/notes/:noteId on %s', (kind) => {
  let t: TestApp;
  let token: string;
  const notesOf = (tok: string) => t.app.repo.notes.ofLink(linkIdOf(tok));

  beforeAll(async () => {
    t = await startTestApp(kind);
    token = await makeLink(t.app.repo);
  });
  afterAll(() => t.close());

  it('should store a new note and answer 201 with its receipt', async () => {
    const body = fakeWebm(5000);
    const noteId = randomUUID();
    const res = await putNote(t.app, { token, body, noteId, marker: 'mi-13', from: 'Sam' });
    expect(res.statusCode).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toEqual({
      id: noteId,
      marker: 'mi-13',
      from: 'Sam',
      contentType: 'audio/webm;codecs=opus',
      bytes: 5000,
      sha256: sha256Hex(body),
      receivedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const stored = (await notesOf(token)).find((n) => n.id === noteId)!;
    expect(stored.status).toBe('received');
    expect(await t.app.blobs.exists(stored.originalKey)).toBe(true);
  });

  it('should answer a repeat with the same digest with the first receipt and keep one note', async () => {
    const tok = await makeLink(t.app.repo);
    const body = fakeWebm(3000);
    const noteId = randomUUID();
    const first = await putNote(t.app, { token: tok, body, noteId });
    const again = await putNote(t.app, { token: tok, body, noteId, from: 'Someone else' });
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect(await notesOf(tok)).toHaveLength(1);
  });

  it('should keep one note when the same upload races itself', async () => {
    const tok = await makeLink(t.app.repo);
    const body = fakeWebm(4000);
    const noteId = randomUUID();
    const answers = await Promise.all(Array.from({ length: 5 }, () => putNote(t.app, { token: tok, body, noteId })));
    expect(answers.map((a) => a.statusCode)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    expect(await notesOf(tok)).toHaveLength(1);
  });

  it('should answer 409 to the same id with a different recording and keep the first', async () => {
    const tok = await makeLink(t.app.repo);
    const noteId = randomUUID();
    const first = fakeWebm(3000);
    await putNote(t.app, { token: tok, body: first, noteId });
    const res = await putNote(t.app, { token: tok, body: fakeWebm(3001), noteId });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe('note_conflict');
    const notes = await notesOf(tok);
    expect(notes.map((n) => n.sha256)).toEqual([sha256Hex(first)]);
  });

  it('should answer 400 when the digest does not match the body and store nothing', async () => {
    const tok = await makeLink(t.app.repo);
    const res = await putNote(t.app, { token: tok, body: fakeWebm(), digest: digestOf(Buffer.from('other')) });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('digest_mismatch');
    expect(await notesOf(tok)).toHaveLength(0);
  });

  it('should answer 500 with the note kept, not "cut off", when the store fails after the whole body came', async () => {
    // Over real HTTP: a request body read to its end is then destroyed by Node, unlike inject's.
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const tok = await makeLink(t.app.repo);
    const put = t.app.blobs.put;
    t.app.blobs.put = async (_key, body) => {
      for await (const _chunk of body) {
        // read it all, as a store does before its backend fails
      }
      throw new Error('the storage backend failed');
    };
    try {
      const answer = await uploadTo(base, tok, randomUUID(), fakeWebm(4000));
      expect(answer.status).toBe(500);
      expect(JSON.parse(answer.problem!)).toEqual({ error: 'server_error', message: expect.stringContaining('kept on your phone') });
    } finally {
      t.app.blobs.put = put;
    }
    expect(await notesOf(tok)).toHaveLength(0);
  });

  it('should answer 415 to bytes that are not audio even with an audio content type', async () => {
    const tok = await makeLink(t.app.repo);
    const res = await putNote(t.app, { token: tok, body: Buffer.from('<html>not a recording at all</html>'), contentType: 'audio/webm' });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ error: 'not_audio', message: expect.any(String) });
    expect(await notesOf(tok)).toHaveLength(0);
  });

  it('should answer 413 to a body over the cap and store nothing', async () => {
    const tok = await makeLink(t.app.repo);
    const res = await putNote(t.app, { token: tok, body: fakeWebm(MAX_NOTE_BYTES + 1) });
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toBe('too_large');
    expect(await notesOf(tok)).toHaveLength(0);
  });

  it('should accept a note right at the cap', async () => {
    const res = await putNote(t.app, { token, body: fakeWebm(MAX_NOTE_BYTES) });
    expect(res.statusCode).toBe(201);
  });

  it('should answer 400 to a kilometre marker on a race that has none', async () => {
    const res = await putNote(t.app, { token, body: fakeWebm(), marker: 'km-5' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('unknown_marker');
  });

  it('should accept a kilometre marker on a race that has them', async () => {
    const tok = await makeLink(t.app.repo, 'sydney-2025');
    expect((await putNote(t.app, { token: tok, body: fakeWebm(), marker: 'km-5' })).statusCode).toBe(201);
    expect((await putNote(t.app, { token: tok, body: fakeWebm(), marker: 'finish' })).statusCode).toBe(201);
  });

  it('should answer 404 to a revoked link and store nothing', async () => {
    const tok = await makeLink(t.app.repo);
    await t.app.repo.links.revoke(linkIdOf(tok), new Date().toISOString());
    const res = await putNote(t.app, { token: tok, body: fakeWebm() });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('link_not_found');
    expect(await notesOf(tok)).toHaveLength(0);
  });
});

describe('rate limiting', () => {
  it('should answer 429 with Retry-After once a link is used too often from one address', async () => {
    const t = await startTestApp('sqlite', { RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const token = await makeLink(t.app.repo);
      const codes = [];
      for (let i = 0; i < 4; i++) codes.push((await t.app.inject({ url: `/api/r/${token}` })).statusCode);
      expect(codes).toEqual([200, 200, 200, 429]);
      const res = await t.app.inject({ url: `/api/r/${token}` });
      expect(res.json()).toEqual({ error: 'rate_limited', message: expect.any(String) });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      const other = await makeLink(t.app.repo);
      expect((await t.app.inject({ url: `/api/r/${other}` })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});
