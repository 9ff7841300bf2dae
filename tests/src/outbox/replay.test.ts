import { beforeEach, describe, expect, it } from 'vitest';
import { BACKOFF_CAP_MS, NETWORK_BACKOFF_CAP_MS, backoffDelay, getNote, readAudio, replayOutbox, retryAfterMs, retryNote } from '../../../src/outbox/index.js';
import { clock, freshDb, queuedNote, scriptedTransport } from './helpers.js';

beforeEach(freshDb);

// The lease path is exercised here (no Web Locks in Node); lock.test.ts covers both.
const base = { locks: null, random: () => 0.5 };

describe('replaying the outbox', () => {
  it('marks a note delivered on a 2xx and keeps its audio for a while', async () => {
    const note = await queuedNote();
    const { transport, calls } = scriptedTransport([201]);
    const report = await replayOutbox(transport, base);
    expect(report).toMatchObject({ ran: true, delivered: [note.id], failed: [], waiting: 0 });
    expect(await getNote(note.id)).toMatchObject({ state: 'delivered', attempts: 1, lastStatus: 201 });
    expect(await readAudio(note.id)).toBeDefined();
    expect(calls).toHaveLength(1);
    expect(calls[0]!.url).toBe(`/api/r/tok-alex/notes/${note.id}?marker=mi-20&from=Sam`);
    expect(calls[0]!.headers['Content-Type']).toBe('audio/webm;codecs=opus');
    expect(calls[0]!.headers['Content-Digest']).toMatch(/^sha-256=:[A-Za-z0-9+/]+=*:$/);
  });

  it('does not upload a delivered note again', async () => {
    await queuedNote();
    const { transport, calls } = scriptedTransport([201]);
    await replayOutbox(transport, base);
    await replayOutbox(transport, { ...base, force: true });
    expect(calls).toHaveLength(1);
  });

  for (const status of [500, 503, 408, 429, 'network'] as const) {
    it(`keeps the note waiting with backoff after ${status === 'network' ? 'a network error' : `a ${status}`}`, async () => {
      const t = clock();
      const note = await queuedNote();
      const { transport } = scriptedTransport([status]);
      const report = await replayOutbox(transport, { ...base, now: t.now });
      const after = await getNote(note.id);
      expect(after).toMatchObject({ state: 'waiting', attempts: 1, lastStatus: status === 'network' ? 0 : status });
      expect(after!.nextAttemptAt).toBe(t.now() + backoffDelay(1, () => 0.5));
      expect(after!.lastError).toMatch(status === 'network' ? /saved on this phone/ : /Trying again soon/);
      expect(report).toMatchObject({ delivered: [], failed: [], waiting: 1, nextAttemptAt: after!.nextAttemptAt });
      expect(await readAudio(note.id)).toBeDefined();
    });
  }

  for (const status of [400, 404, 409, 413, 415]) {
    it(`moves the note to 'Needs attention' with the server's message after a ${status}, audio kept`, async () => {
      const note = await queuedNote();
      const { transport } = scriptedTransport([status]);
      const report = await replayOutbox(transport, base);
      expect(report.failed).toEqual([note.id]);
      expect(await getNote(note.id)).toMatchObject({ state: 'failed', lastStatus: status, lastError: `Server says ${status}.` });
      expect(await readAudio(note.id)).toBeDefined();
    });
  }

  for (const error of ['link_full', 'link_storage_full']) {
    it(`moves the note to 'Needs attention' with the server's sentence after a 429 ${error}, audio kept`, async () => {
      const note = await queuedNote();
      const message = 'This link has reached its limit of notes. Ask Alex for a new link.';
      const body = JSON.stringify({ error, message });
      const report = await replayOutbox(async () => ({ status: 429, body, retryAfter: '86400' }), base);
      expect(report).toMatchObject({ failed: [note.id], waiting: 0 });
      expect(await getNote(note.id)).toMatchObject({ state: 'failed', lastStatus: 429, lastError: message });
      expect(await readAudio(note.id)).toBeDefined();
    });
  }

  it('keeps waiting after a 429 that is only about the rate, honouring its Retry-After', async () => {
    const t = clock();
    const note = await queuedNote();
    const body = JSON.stringify({ error: 'address_rate_limited', message: 'Many notes were sent from this network.' });
    await replayOutbox(async () => ({ status: 429, body, retryAfter: '120' }), { ...base, now: t.now });
    expect(await getNote(note.id)).toMatchObject({ state: 'waiting', lastStatus: 429, nextAttemptAt: t.now() + 120_000 });
  });

  it('gives a plain sentence when a 4xx has no JSON message', async () => {
    const note = await queuedNote();
    await replayOutbox(async () => ({ status: 403, body: '<html>Forbidden</html>', retryAfter: null }), base);
    expect((await getNote(note.id))!.lastError).toBe('The server could not accept this note (error 403).');
  });

  it('leaves a note alone until its backoff has passed, then delivers it once', async () => {
    const t = clock();
    const note = await queuedNote();
    const { transport, calls } = scriptedTransport([500, 201]);
    await replayOutbox(transport, { ...base, now: t.now });
    await replayOutbox(transport, { ...base, now: t.now });
    expect(calls).toHaveLength(1);
    t.advance(backoffDelay(1, () => 0.5));
    const report = await replayOutbox(transport, { ...base, now: t.now });
    expect(report.delivered).toEqual([note.id]);
    expect(calls).toHaveLength(2);
    expect(await getNote(note.id)).toMatchObject({ state: 'delivered', attempts: 2 });
  });

  it('skips the backoff when forced (back online, Retry) but honours a Retry-After', async () => {
    const t = clock();
    const busy = await queuedNote();
    const { transport, calls } = scriptedTransport([429], '120');
    await replayOutbox(transport, { ...base, now: t.now });
    expect((await getNote(busy.id))!.nextAttemptAt).toBe(t.now() + 120_000);
    await replayOutbox(transport, { ...base, now: t.now, force: true });
    expect(calls).toHaveLength(1);

    const offline = await queuedNote();
    const net = scriptedTransport(['network', 201]);
    await replayOutbox(net.transport, { ...base, now: t.now });
    const forced = await replayOutbox(net.transport, { ...base, now: t.now, force: true });
    expect(forced.delivered).toEqual([offline.id]);
  });

  it('never waits more than 30 s after a network error, however many came before', async () => {
    const t = clock();
    const note = await queuedNote();
    const { transport, calls } = scriptedTransport(['network']);
    for (let run = 0; run < 12; run++) {
      await replayOutbox(transport, { ...base, now: t.now });
      const waiting = await getNote(note.id);
      expect(waiting!.nextAttemptAt - t.now()).toBeLessThanOrEqual(NETWORK_BACKOFF_CAP_MS);
      t.advance(waiting!.nextAttemptAt - t.now());
    }
    expect(calls).toHaveLength(12);
  });

  for (const status of [502, 504] as const) {
    it(`treats a gateway's ${status} as network trouble: at most 30 s apart, and sent at once when another note gets through`, async () => {
      const t = clock();
      const older = await queuedNote(undefined, 'mi-1', 1);
      const gateway = scriptedTransport([status]);
      for (let run = 0; run < 12; run++) {
        await replayOutbox(gateway.transport, { ...base, now: t.now });
        const waiting = await getNote(older.id);
        expect(waiting!.nextAttemptAt - t.now()).toBeLessThanOrEqual(NETWORK_BACKOFF_CAP_MS);
        if (run < 11) t.advance(waiting!.nextAttemptAt - t.now());
      }
      expect(gateway.calls).toHaveLength(12);
      // Not due yet when the next note goes through:
      const newer = await queuedNote(undefined, 'mi-2', 2);
      const { transport, calls } = scriptedTransport([201, 201]);
      const report = await replayOutbox(transport, { ...base, now: t.now });
      expect(report.delivered.sort()).toEqual([older.id, newer.id].sort());
      expect(calls).toHaveLength(2);
    });
  }

  it('sends notes that waited on a network error at once when another note gets through', async () => {
    const t = clock();
    const older = await queuedNote(undefined, 'mi-1', 1);
    await replayOutbox(scriptedTransport(['network']).transport, { ...base, now: t.now });
    expect((await getNote(older.id))!.nextAttemptAt).toBeGreaterThan(t.now());
    const newer = await queuedNote(undefined, 'mi-2', 2);
    const { transport, calls } = scriptedTransport([201, 201]);
    const report = await replayOutbox(transport, { ...base, now: t.now });
    expect(report.delivered.sort()).toEqual([older.id, newer.id].sort());
    expect(calls).toHaveLength(2);
  });

  it('tries each note at most once per run, so a forced run ends while the network is down', async () => {
    await queuedNote();
    await queuedNote();
    const { transport, calls } = scriptedTransport(['network']);
    const report = await replayOutbox(transport, { ...base, force: true });
    expect(calls).toHaveLength(2);
    expect(report.waiting).toBe(2);
  });

  it('uploads the oldest note first and picks up notes queued during the run', async () => {
    const first = await queuedNote(undefined, 'mi-1', 1);
    let second: string | undefined;
    const order: string[] = [];
    const report = await replayOutbox(async (request) => {
      order.push(request.url);
      if (!second) second = (await queuedNote(undefined, 'mi-2', 2)).id;
      return { status: 201, body: '{}', retryAfter: null };
    }, base);
    expect(report.delivered).toEqual([first.id, second]);
    expect(order[0]).toContain(first.id);
  });

  it('puts a note left in sending by a crashed uploader back in line', async () => {
    const note = await queuedNote();
    const hang = replayOutbox(() => new Promise(() => {}), { ...base, now: () => 1_000 });
    void hang;
    await expect.poll(async () => (await getNote(note.id))!.state).toBe('sending');
    // The crashed uploader's lease expires; a new uploader finds the note.
    const { transport } = scriptedTransport([201]);
    const report = await replayOutbox(transport, { ...base, now: () => 10 * 60_000 });
    expect(report.delivered).toEqual([note.id]);
  });

  it('sends a note again after Retry and delivers it', async () => {
    const note = await queuedNote();
    await replayOutbox(scriptedTransport([413]).transport, base);
    await retryNote(note.id);
    const report = await replayOutbox(scriptedTransport([201]).transport, base);
    expect(report.delivered).toEqual([note.id]);
  });

  it('tells the caller about each delivery so the worker can post to open pages', async () => {
    const note = await queuedNote();
    const seen: string[] = [];
    await replayOutbox(scriptedTransport([200]).transport, { ...base, onDelivered: (n) => seen.push(n.id) });
    expect(seen).toEqual([note.id]);
  });
});

describe('backoff', () => {
  it('doubles from 2 s with jitter between half and the full step, capped at 5 minutes', () => {
    expect(backoffDelay(1, () => 0)).toBe(1_000);
    expect(backoffDelay(1, () => 1)).toBe(2_000);
    expect(backoffDelay(3, () => 1)).toBe(8_000);
    expect(backoffDelay(30, () => 1)).toBe(BACKOFF_CAP_MS);
    expect(backoffDelay(30, () => 0)).toBe(BACKOFF_CAP_MS / 2);
    expect(backoffDelay(30, () => 1, NETWORK_BACKOFF_CAP_MS)).toBe(NETWORK_BACKOFF_CAP_MS);
  });

  it('reads Retry-After as seconds or as a date, and ignores nonsense', () => {
    expect(retryAfterMs('30', 0)).toBe(30_000);
    expect(retryAfterMs(new Date(60_000).toUTCString(), 0)).toBe(60_000);
    expect(retryAfterMs('soon', 0)).toBe(0);
    expect(retryAfterMs(null, 0)).toBe(0);
  });
});
