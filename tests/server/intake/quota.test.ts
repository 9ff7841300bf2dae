import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../server/app.js';
import { loadConfig } from '../../../server/config/index.js';
import { linkIdOf } from '../../../server/links.js';
import { createUploadQuota } from '../../../server/intake/quota.js';
import { ApiProblem } from '../../../server/http/problem.js';
import { queueNote } from '../../../server/races/note-deadlines.js';
import { BACKENDS } from '../support/backends.js';
import { startTestApp, testLog, type TestApp } from '../support/app.js';
import { fakeWebm, makeLink, putNote } from '../support/uploads.js';

describe.each(BACKENDS)('upload quotas on %s', (kind) => {
  let t: TestApp;
  const notesOf = async (tok: string) => t.app.repo.notes.ofLink(linkIdOf(tok));
  // Each test uses its own addresses, so the per-address count of one never limits another.
  let nextAddress = 1;
  const address = () => `10.9.${Math.floor(nextAddress / 250)}.${(nextAddress++ % 250) + 1}`;

  beforeAll(async () => {
    t = await startTestApp(kind, { LINK_MAX_NOTES: '5', LINK_MAX_BYTES: '12000', UPLOADS_PER_ADDRESS: '4', OPEN_UPLOADS_PER_ADDRESS: '50' });
  });
  afterAll(() => t.close());

  it('should refuse the note past the link limit with 429, Retry-After and the runner named, keeping every stored note', async () => {
    const token = await makeLink(t.app.repo, 'chicago-2025', 'Alex');
    for (let i = 0; i < 5; i++) expect((await putNote(t.app, { token, body: fakeWebm(1000), remoteAddress: address() })).statusCode).toBe(201);
    const before = await notesOf(token);
    const refused = await putNote(t.app, { token, body: fakeWebm(1000), remoteAddress: address() });
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json()).toEqual({ error: 'link_full', message: 'This link has reached its limit of notes. Ask Alex for a new link.' });
    expect(await notesOf(token)).toEqual(before);
  });

  it('should still answer a retry of a stored note on a full link as the first time', async () => {
    const token = await makeLink(t.app.repo);
    const body = fakeWebm(1000);
    const noteId = randomUUID();
    const first = await putNote(t.app, { token, body, noteId, remoteAddress: address() });
    expect(first.statusCode).toBe(201);
    for (let i = 0; i < 4; i++) expect((await putNote(t.app, { token, body: fakeWebm(1000), remoteAddress: address() })).statusCode).toBe(201);
    const retry = await putNote(t.app, { token, body, noteId, remoteAddress: address() });
    expect(retry.statusCode).toBe(201);
    expect(retry.json()).toEqual(first.json());
  });

  it('should refuse a note that would pass the link byte budget, and count what is stored, not what was refused', async () => {
    const token = await makeLink(t.app.repo, 'chicago-2025', 'Alex');
    expect((await putNote(t.app, { token, body: fakeWebm(5000), remoteAddress: address() })).statusCode).toBe(201);
    expect((await putNote(t.app, { token, body: fakeWebm(5000), remoteAddress: address() })).statusCode).toBe(201);
    const refused = await putNote(t.app, { token, body: fakeWebm(5000), remoteAddress: address() });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ error: 'link_storage_full', message: 'This link has no room left for more recordings. Ask Alex for a new link.' });
    // The refused 5000 bytes were never counted: 2000 more still fit.
    expect((await putNote(t.app, { token, body: fakeWebm(2000), remoteAddress: address() })).statusCode).toBe(201);
    expect(await notesOf(token)).toHaveLength(3);
  });

  it('should free the room a failed upload held', async () => {
    const token = await makeLink(t.app.repo);
    for (let i = 0; i < 5; i++) {
      const bad = await putNote(t.app, { token, body: fakeWebm(1000), digest: `sha-256=:${Buffer.alloc(32).toString('base64')}:`, remoteAddress: address() });
      expect(bad.json().error).toBe('digest_mismatch');
    }
    for (let i = 0; i < 5; i++) expect((await putNote(t.app, { token, body: fakeWebm(1000), remoteAddress: address() })).statusCode).toBe(201);
  });

  it('should count a stored note once, not again through the reservation that held its room, so the last note that fits is taken', async () => {
    const token = await makeLink(t.app.repo);
    const linkId = linkIdOf(token);
    const store = t.app.repo.quota;
    const now = Date.now();
    const room = async (noteId: string) =>
      (
        await store.admit(
          { address: `10.8.0.${nextAddress++}`, now, since: now - 600_000, max: 10 },
          { id: randomUUID(), linkId, noteId, bytes: 100, now, expiresAt: now + 60_000, maxNotes: 2, maxBytes: 1e6 },
        )
      ).roomHeld;
    const noteId = randomUUID();
    expect(await room(noteId)).toBe(true);
    await queueNote(
      t.app.repo,
      {
        id: noteId,
        linkId,
        marker: 'mi-13',
        from: 'Sam',
        contentType: 'audio/webm',
        bytes: 100,
        sha256: 'a'.repeat(64),
        originalKey: `originals/${noteId}`,
        receivedAt: new Date().toISOString(),
      },
      (queued) => t.app.repo.notes.insert(queued),
    );
    expect(await store.usage(linkId, now)).toEqual({ notes: 1, bytes: 100 });
    expect(await room(randomUUID())).toBe(true);
    expect(await room(randomUUID())).toBe(false);
  });

  it('should count the room unfinished uploads hold when a whole note is taken, by notes and by bytes', async () => {
    const token = await makeLink(t.app.repo);
    const linkId = linkIdOf(token);
    const store = t.app.repo.quota;
    const now = Date.now();
    const count = () => ({ address: `10.7.0.${nextAddress++}`, now, since: now - 600_000, max: 10 });
    // One unfinished resumable upload holds 400 bytes of the link's room.
    const held = await store.admit(count(), {
      id: randomUUID(),
      linkId,
      noteId: randomUUID(),
      bytes: 400,
      now,
      expiresAt: now + 60_000,
      maxNotes: 3,
      maxBytes: 1000,
    });
    expect(held.roomHeld).toBe(true);
    const note = (bytes: number) => {
      const id = randomUUID();
      return {
        id,
        linkId,
        marker: 'mi-13',
        from: 'Sam',
        contentType: 'audio/webm',
        bytes,
        sha256: 'a'.repeat(64),
        originalKey: `originals/${id}`,
        receivedAt: new Date().toISOString(),
      };
    };
    const limits = () => ({ count: count(), maxNotes: 3, maxBytes: 1000 });
    // 400 held + 601 would pass 1000 bytes; 400 + 500 fits.
    expect(await queueNote(t.app.repo, note(601), (n) => store.take(n, limits()))).toBe('link_bytes');
    expect(await queueNote(t.app.repo, note(500), (n) => store.take(n, limits()))).toBe('stored');
    // Two notes' worth now: the one stored and the one held. A third fits; a fourth does not.
    expect(await queueNote(t.app.repo, note(10), (n) => store.take(n, limits()))).toBe('stored');
    expect(await queueNote(t.app.repo, note(10), (n) => store.take(n, limits()))).toBe('link_notes');
  });

  it('should store exactly the limit when 40 uploads race for one link', async () => {
    const token = await makeLink(t.app.repo);
    const answers = await Promise.all(Array.from({ length: 40 }, () => putNote(t.app, { token, body: fakeWebm(500), remoteAddress: address() })));
    const codes = answers.map((a) => a.statusCode);
    expect(codes.filter((c) => c === 201)).toHaveLength(5);
    expect(codes.filter((c) => c === 429)).toHaveLength(35);
    expect(await notesOf(token)).toHaveLength(5);
  });

  it('should hold the link limit across two servers on one database', async () => {
    const second = await buildApp(
      loadConfig({ ...t.backend.env, LINK_MAX_NOTES: '5', LINK_MAX_BYTES: '12000', UPLOADS_PER_ADDRESS: '4', OPEN_UPLOADS_PER_ADDRESS: '50' }),
      { logStream: testLog },
    );
    try {
      const token = await makeLink(t.app.repo);
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) => putNote(i % 2 ? second : t.app, { token, body: fakeWebm(500), remoteAddress: address() })),
      );
      expect(answers.filter((a) => a.statusCode === 201)).toHaveLength(5);
      expect(await notesOf(token)).toHaveLength(5);
    } finally {
      await second.close();
    }
  });

  it('should limit uploads per address with 429 and a Retry-After within the window, on any server', async () => {
    const second = await buildApp(loadConfig({ ...t.backend.env, UPLOADS_PER_ADDRESS: '4' }), { logStream: testLog });
    try {
      const from = address();
      const tokens = [await makeLink(t.app.repo), await makeLink(t.app.repo)];
      const codes = [];
      for (let i = 0; i < 6; i++)
        codes.push((await putNote(i % 2 ? second : t.app, { token: tokens[i % 2]!, body: fakeWebm(500), remoteAddress: from })).statusCode);
      expect(codes).toEqual([201, 201, 201, 201, 429, 429]);
      const refused = await putNote(t.app, { token: tokens[0]!, body: fakeWebm(500), remoteAddress: from });
      expect(refused.json().error).toBe('address_rate_limited');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(600);
      expect((await putNote(t.app, { token: tokens[0]!, body: fakeWebm(500), remoteAddress: address() })).statusCode).toBe(201);
    } finally {
      await second.close();
    }
  });

  it('should let an address start the limit in any span of the window, not twice it across the end of a window fixed to the clock', async () => {
    const windowMs = 600_000;
    let clock = Math.ceil(Date.now() / windowMs) * windowMs + 5 * windowMs - 2000; // 2 s before a multiple of the window
    const quota = createUploadQuota(
      t.app.repo.quota,
      { ...loadConfig(t.backend.env).uploads, uploadsPerAddress: 4, uploadWindowMs: windowMs, linkMaxNotes: 100 },
      () => clock,
    );
    const from = address();
    const linkId = linkIdOf(await makeLink(t.app.repo));
    const start = async () => {
      try {
        await quota.admit(from, { linkId, noteId: randomUUID(), runnerName: 'Alex' }, 100);
        return 'started';
      } catch (err) {
        if (!(err instanceof ApiProblem)) throw err;
        return `${err.code} after ${err.headers?.['retry-after']} s`;
      }
    };
    const firstAt = clock;
    const answers = [await start(), await start()];
    clock += 1000;
    answers.push(await start(), await start());
    clock += 2000; // past the multiple of the window
    answers.push(await start());
    clock = firstAt + windowMs - 1; // the first start is still in the window, by a millisecond
    answers.push(await start());
    clock = firstAt + windowMs; // and now it has left it; the second, started with it, too
    answers.push(await start(), await start(), await start());
    expect(answers).toEqual([
      'started',
      'started',
      'started',
      'started',
      'address_rate_limited after 597 s',
      'address_rate_limited after 1 s',
      'started',
      'started',
      'address_rate_limited after 1 s',
    ]);
  });

  it('should start exactly the address limit when 20 uploads from one address race', async () => {
    const quota = createUploadQuota(t.app.repo.quota, { ...loadConfig(t.backend.env).uploads, uploadsPerAddress: 4, linkMaxNotes: 100 });
    const from = address();
    const linkId = linkIdOf(await makeLink(t.app.repo));
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => quota.admit(from, { linkId, noteId: randomUUID(), runnerName: 'Alex' }, 100)));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(4);
    expect(outcomes.filter((o) => o.status === 'rejected' && (o.reason as ApiProblem).code === 'address_rate_limited')).toHaveLength(16);
  });
});
