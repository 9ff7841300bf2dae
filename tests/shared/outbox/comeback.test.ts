import { beforeEach, describe, expect, it } from 'vitest';
import { getNote, replayOutbox, updateNote, type UploadRequest, type UploadResponse } from '../../../src/shared/outbox/index.js';
import { clock, freshDb, queuedNote, scriptedTransport } from './helpers.js';

beforeEach(freshDb);

const base = { locks: null, random: () => 0.5 };

/** A way to the server that is down until `up` is set; then HEAD answers as a server holding nothing and PUT stores. */
function link() {
  const state = { up: false, calls: [] as UploadRequest[] };
  const transport = async (request: UploadRequest): Promise<UploadResponse> => {
    if (!state.up) throw new TypeError('Failed to fetch');
    state.calls.push(request);
    if (request.method === 'HEAD') return { status: 404, body: '{"error":"upload_not_found"}', retryAfter: null };
    return { status: 201, body: '{}', retryAfter: null };
  };
  return { state, transport };
}

/** A note that waited through `failures` network errors in a row: its next try is far off. */
async function waitingBehindFailures(failures: number, t: ReturnType<typeof clock>, marker = 'mi-1', createdAt = 1) {
  const note = await queuedNote(undefined, marker, createdAt);
  const down = scriptedTransport(['network']);
  for (let i = 0; i < failures; i++) {
    await replayOutbox(down.transport, { ...base, now: t.now });
    t.advance((await getNote(note.id))!.nextAttemptAt - t.now());
  }
  await replayOutbox(down.transport, { ...base, now: t.now });
  return (await getNote(note.id))!;
}

describe('the comeback: back in signal, send at once', () => {
  it('should ask with a header-only request whether the way is back while a note waits on the network, and send the note at once when it is', async () => {
    const t = clock();
    const note = await waitingBehindFailures(5, t);
    expect(note.nextAttemptAt - t.now()).toBeGreaterThan(10_000);
    const { state, transport } = link();
    state.up = true;
    const report = await replayOutbox(transport, { ...base, now: t.now });
    expect(report.delivered).toEqual([note.id]);
    expect(state.calls[0]).toMatchObject({ method: 'HEAD' });
    expect(state.calls[0]!.body).toBeUndefined();
    expect(state.calls.filter((c) => c.body)).toHaveLength(1);
  });

  it('should send no body, and leave the note as it was, while the header-only request gets no answer', async () => {
    const t = clock();
    const note = await waitingBehindFailures(3, t);
    const { state, transport } = link();
    const report = await replayOutbox(transport, { ...base, now: t.now });
    expect(report).toMatchObject({ delivered: [], waiting: 1 });
    expect(state.calls).toHaveLength(0);
    expect(await getNote(note.id)).toEqual(note);
  });

  it("should not ask early for a note held back by the server's own answer (a 429 or 503 with Retry-After)", async () => {
    const t = clock();
    for (const [marker, status] of [['mi-1', 429], ['mi-2', 503]] as const) {
      const held = await queuedNote(undefined, marker);
      await updateNote(held.id, (n) => ({ ...n, lastStatus: status, attempts: 1, nextAttemptAt: t.now() + 60_000 }));
    }
    const { state, transport } = link();
    state.up = true;
    await replayOutbox(transport, { ...base, now: t.now });
    expect(state.calls).toHaveLength(0);
  });

  it('should try again in the same run a note that failed on the network just before another note got through', async () => {
    const t = clock();
    const older = await queuedNote(undefined, 'mi-1', 1);
    const newer = await queuedNote(undefined, 'mi-2', 2);
    const { transport, calls } = scriptedTransport(['network', 201, 201]);
    const report = await replayOutbox(transport, { ...base, now: t.now, force: true });
    expect(report.delivered.sort()).toEqual([older.id, newer.id].sort());
    expect(calls).toHaveLength(3);
  });

  it('should count any answer of the server as the way being back, not only a delivery', async () => {
    const t = clock();
    const older = await waitingBehindFailures(4, t, 'mi-1', 1);
    const refused = await queuedNote(undefined, 'mi-2', 2);
    const { transport, calls } = scriptedTransport([413, 201]);
    // Only the newer note is due; the server refuses it, and that answer is the way being back.
    const report = await replayOutbox(transport, { ...base, now: t.now });
    expect(report.failed).toEqual([refused.id]);
    expect(report.delivered).toEqual([older.id]);
    expect(calls).toHaveLength(2);
  });
});
