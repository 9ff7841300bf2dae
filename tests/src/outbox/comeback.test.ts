import { beforeEach, describe, expect, it } from 'vitest';
import {
  COMEBACK_PROBE_CAP_MS,
  COMEBACK_PROBE_MS,
  getNote,
  nextProbeInterval,
  nextWake,
  replayOutbox,
  updateNote,
  type UploadRequest,
  type UploadResponse,
} from '../../../src/outbox/index.js';
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
    for (const [marker, status] of [
      ['mi-1', 429],
      ['mi-2', 503],
    ] as const) {
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

describe('when the next probe comes', () => {
  const waiting = (lastStatus: number, nextAttemptAt: number) => ({ state: 'waiting' as const, lastStatus, nextAttemptAt });

  it('should wake for a probe soon while a note waits on the network, and only when due otherwise', () => {
    expect(nextWake([waiting(0, 60_000)], 1_000)).toBe(1_000 + COMEBACK_PROBE_MS);
    expect(nextWake([waiting(502, 60_000)], 1_000, 8_000)).toBe(9_000);
    expect(nextWake([waiting(503, 60_000)], 1_000)).toBe(60_000);
    expect(nextWake([waiting(0, 1_200)], 1_000)).toBe(1_200);
  });

  it('should space the probes out after a false comeback, up to a cap, and go back to the shortest once a note got through', () => {
    let every = COMEBACK_PROBE_MS;
    for (let i = 0; i < 10; i++) every = nextProbeInterval(every, { probe: 'reached', delivered: [] });
    expect(every).toBe(COMEBACK_PROBE_CAP_MS);
    expect(nextProbeInterval(every, { probe: 'no answer', delivered: [] })).toBe(COMEBACK_PROBE_CAP_MS);
    expect(nextProbeInterval(every, { delivered: ['n1'] })).toBe(COMEBACK_PROBE_MS);
  });
});
