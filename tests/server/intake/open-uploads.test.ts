import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../support/backends.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { append, partialCreation, send, trickle, type Trickle } from '../support/resumable.js';
import { fakeWebm, makeLink } from '../support/uploads.js';

describe.each(BACKENDS)('uploads one address holds open on %s', (kind) => {
  let t: TestApp;
  let base: string;
  let token: string;
  const trickles: Trickle[] = [];
  beforeAll(async () => {
    t = await startTestApp(kind);
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    token = await makeLink(t.app.repo);
  });
  afterAll(async () => {
    for (const request of trickles) request.cut();
    await t.close();
  });

  it('should hold at most OPEN_UPLOADS_PER_ADDRESS appends open, as whole PUTs, and answer the rest 429 too_many_open_uploads', async () => {
    const max = t.backend.config.uploads.openUploadsPerAddress;
    const note = fakeWebm(4_000);
    const noteIds = Array.from({ length: max + 4 }, () => randomUUID());
    // Unfinished uploads made from another address, which then holds nothing open.
    for (const noteId of noteIds) {
      expect((await send(base, { ...partialCreation(token, noteId, note, 1_000), localAddress: '127.0.0.40' })).status).toBe(201);
    }

    // An attacker's appends from one address, each trickling a byte every 2 s: never idle, never done.
    const appends = noteIds.map((noteId) => trickle(base, { ...append(token, noteId, note, 1_000), localAddress: '127.0.0.41' }, 1));
    trickles.push(...appends);
    const answered: { status: number; body: string; retryAfter?: string }[] = [];
    for (const request of appends) {
      void request.answer.then((a) => answered.push({ status: a.status, body: a.body, retryAfter: a.headers['retry-after'] as string | undefined }));
    }
    const appending = async () => (await Promise.all(noteIds.map((id) => t.app.repo.uploads.find(id)))).filter((u) => u?.leaseOwner).length;

    await expect.poll(() => answered.length, { timeout: 15_000, interval: 50 }).toBe(noteIds.length - max);
    await expect.poll(appending, { timeout: 15_000, interval: 50 }).toBe(max);
    expect(answered).toHaveLength(noteIds.length - max);
    for (const refused of answered) {
      expect(refused).toMatchObject({ status: 429, retryAfter: '5' });
      expect(JSON.parse(refused.body)).toMatchObject({ error: 'too_many_open_uploads' });
    }
    // Another address is not held back by this one's.
    const other = randomUUID();
    await send(base, { ...partialCreation(token, other, note, 1_000), localAddress: '127.0.0.42' });
    expect((await send(base, { ...append(token, other, note, 1_000), localAddress: '127.0.0.42' })).status).toBe(201);

    // Once they end, the address may append again.
    for (const request of appends) request.cut();
    await expect.poll(appending, { timeout: 15_000, interval: 50 }).toBe(0);
    const held = (await t.app.repo.uploads.find(noteIds[0]!))!.offset;
    expect((await send(base, { ...append(token, noteIds[0]!, note, held), localAddress: '127.0.0.41' })).status).toBe(201);
  });
});
