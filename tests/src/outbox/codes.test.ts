import { beforeEach, describe, expect, it } from 'vitest';
import { OUTBOX_CODE, getNote, outboxDb, replayOutbox, retryNote, type UploadResponse } from '../../../src/outbox/index.js';
import { freshDb, queuedNote, scriptedTransport } from './helpers.js';

beforeEach(freshDb);

const base = { locks: null, random: () => 0.5 };
const answer = (status: number, body: unknown): UploadResponse => ({
  status,
  body: typeof body === 'string' ? body : JSON.stringify(body),
  retryAfter: null,
});

/** The note after one replay in which the server gave this answer. */
async function noteAfter(response: UploadResponse) {
  const note = await queuedNote();
  await replayOutbox(async () => response, base);
  return (await getNote(note.id))!;
}

describe('why a note is not delivered, as a code beside the sentence', () => {
  it("should keep the server's code and sentence when it refuses a note", async () => {
    const message = 'This recording is too big to send. Please record a shorter note.';
    expect(await noteAfter(answer(413, { error: 'too_large', message }))).toMatchObject({ state: 'failed', lastCode: 'too_large', lastError: message });
    expect(await noteAfter(answer(400, { error: 'digest_mismatch', message: 'x' }))).toMatchObject({ state: 'failed', lastCode: 'digest_mismatch' });
  });

  it("should keep the server's code when a full link's 429 needs the person", async () => {
    expect(await noteAfter(answer(429, { error: 'link_full', message: 'Ask Alex for a new link.' }))).toMatchObject({ state: 'failed', lastCode: 'link_full' });
  });

  it("should keep the server's code for an answer worth waiting for, beside the outbox's own sentence", async () => {
    const note = await noteAfter(answer(429, { error: 'rate_limited', message: 'Too many requests in a short time.' }));
    expect(note).toMatchObject({ state: 'waiting', lastCode: 'rate_limited', lastError: 'The server is busy (error 429). Trying again soon.' });
  });

  it('should say offline when no answer came', async () => {
    const note = await queuedNote();
    await replayOutbox(scriptedTransport(['network']).transport, base);
    expect(await getNote(note.id)).toMatchObject({ state: 'waiting', lastStatus: 0, lastCode: OUTBOX_CODE.offline });
  });

  it('should say the server is busy for a retryable status without a code, as a gateway gives', async () => {
    for (const status of [502, 503, 500]) {
      expect(await noteAfter(answer(status, '<html>Bad Gateway</html>'))).toMatchObject({ state: 'waiting', lastCode: OUTBOX_CODE.serverBusy });
    }
    expect(await noteAfter(answer(503, { error: '', message: '' }))).toMatchObject({ lastCode: OUTBOX_CODE.serverBusy });
  });

  it('should say refused for a refusal without a code', async () => {
    const note = await noteAfter(answer(403, '<html>Forbidden</html>'));
    expect(note).toMatchObject({ state: 'failed', lastCode: OUTBOX_CODE.refused, lastError: 'The server could not accept this note (error 403).' });
  });

  it("should say the recording is missing when the note's audio is gone from the phone", async () => {
    const note = await queuedNote();
    await (await outboxDb()).delete('audio', note.id);
    const { transport, calls } = scriptedTransport([201]);
    await replayOutbox(transport, base);
    expect(calls).toHaveLength(0);
    expect(await getNote(note.id)).toMatchObject({ state: 'failed', lastCode: OUTBOX_CODE.recordingMissing });
  });

  it('should forget the code once the note is delivered', async () => {
    const note = await queuedNote();
    await replayOutbox(scriptedTransport([415]).transport, base);
    expect((await getNote(note.id))!.lastCode).toBe('x');
    await retryNote(note.id);
    await replayOutbox(scriptedTransport([201]).transport, base);
    const delivered = (await getNote(note.id))!;
    expect(delivered.state).toBe('delivered');
    expect(delivered.lastCode).toBeUndefined();
    expect(delivered.lastError).toBeUndefined();
  });
});
