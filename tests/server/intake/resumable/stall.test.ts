import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDLE_TIMEOUT_DEFAULT_MS } from '../../../../server/config/index.js';
import { APPEND_IDLE_MS } from '../../../../server/intake/resumable/append.js';
import { BACKENDS } from '../../support/backends.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { creation, trickle } from '../../support/resumable.js';
import { fakeWebm, makeLink } from '../../support/uploads.js';

/** How long a one-bar phone's upload goes silent and then goes on (measured at venues). */
const ONE_BAR_STALL_MS = 20_000;

describe('stalls are not cuts', () => {
  it('should cut a silent note body, and a silent connection, only well after a one-bar phone resumes', () => {
    expect(APPEND_IDLE_MS).toBeGreaterThanOrEqual(2 * ONE_BAR_STALL_MS);
    // The body's own rule keeps what arrived: it must act before the connection is closed under it.
    expect(IDLE_TIMEOUT_DEFAULT_MS).toBeGreaterThan(APPEND_IDLE_MS);
  });
});

describe.each(BACKENDS)('a stalling upload on %s', (db) => {
  let t: TestApp;
  let base: string;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp(db);
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    token = await makeLink(t.app.repo);
  });
  afterAll(() => t.close());

  it('should store a note whose one request went silent for 12 s midway, with no cut and no second request', async () => {
    const body = fakeWebm(30_000);
    const noteId = randomUUID();
    // Half the note, then nothing (no drip within the test), as a phone whose bar is gone for a while.
    const upload = trickle(base, creation(token, noteId, body), 15_000, 3_600_000);
    let ended = false;
    void upload.answer.then(() => (ended = true));
    // The stall itself is what is tested: 12 s of silence, past the 10 s the server used to allow.
    await new Promise((resolve) => setTimeout(resolve, 12_000));
    expect(ended).toBe(false);
    upload.finish();
    expect((await upload.answer).status).toBe(201);
    expect((await t.app.repo.notes.find(noteId))?.bytes).toBe(body.length);
  }, 30_000);
});
