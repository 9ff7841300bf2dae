/**
 * Held sync requests (server/sync) against the real app: woken by the conversion worker, by a
 * conversion on the other of two servers on one PostgreSQL, ended by a stop, never rate-limited,
 * and capped per process and per account.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { AppOps, AppParts } from '../../../server/app.js';
import type { EntryNotes, Session } from '../../../contract/runnerApi.js';
import { FAKE_APPLE_NONCE, startFakeApple } from '../../../stand-ins/fakeApple.js';
import { restartOn } from '../support/app.js';
import { runAdmin } from '../support/cli.js';
import { UPCOMING } from '../support/races.js';
import { FORMATS, makeSpeech } from '../support/audio.js';
import { BACKENDS, createBackend } from '../support/backends.js';
import { startServerProcess, stopGracefully, type ServerProcess } from '../../../kit/serverProcess.js';
import { putNote } from '../support/uploads.js';
import { startRunnerApp, type RunnerTestApp } from '../runner/support.js';

type App = FastifyInstance & AppParts & AppOps;

let dir: string;
let speech: Buffer;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-sync-'));
  await makeSpeech(dir);
  speech = await readFile(path.join(dir, FORMATS['WebM/Opus'].file));
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

const list = (app: FastifyInstance, session: Session, entryId: string, query: Record<string, string | number> = {}) =>
  app.inject({
    url: `/api/entries/${entryId}/notes?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}`,
    headers: { authorization: `Bearer ${session.accessToken}` },
  });

/** Holds the app's conversion worker before it takes a job, until `open()`; records when each conversion starts committing. */
function gateConversions(app: App) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const { claim, markConverted } = app.repo.jobs;
  const committedAt = new Map<string, number>();
  app.repo.jobs.claim = async (...args) => {
    await gate;
    return claim(...args);
  };
  // When the worker starts committing: the answer may come before the worker hears its COMMIT
  // acknowledged, so this is the earliest the conversion can count as made, and the lag measured
  // from it is never less than the real one.
  app.repo.jobs.markConverted = (noteId, ...rest) => {
    committedAt.set(noteId, Date.now());
    return markConverted(noteId, ...rest);
  };
  return { open, committedAt };
}

/** A held request and the time its answer came. */
function hold(app: FastifyInstance, session: Session, entryId: string, query: Record<string, string | number>) {
  let at = 0;
  const answer = list(app, session, entryId, query).then((res) => {
    at = Date.now();
    return res;
  });
  return { answer, answeredAt: () => at };
}

/**
 * Sends a real note to `converter` (its worker held back), holds a sync request for it on
 * `holder`, lets the worker go, and resolves to the ms from the conversion's commit to the answer.
 */
async function heldUntilConverted(holder: RunnerTestApp, converter: App): Promise<number> {
  const conversions = gateConversions(converter);
  const session = await holder.signIn();
  const entry = await holder.enter(session);
  const sent = await putNote(converter, { token: entry.token, body: speech, contentType: FORMATS['WebM/Opus'].contentType });
  expect(sent.statusCode).toBe(201);
  const noteId = sent.json().id as string;
  const { cursor } = (await list(holder.app, session, entry.id)).json() as EntryNotes;
  const held = hold(holder.app, session, entry.id, { after: cursor, wait: 30 });
  await expect.poll(() => holder.app.noteChanges.held(), { timeout: 10_000, interval: 10 }).toBe(1);
  conversions.open();
  const res = await held.answer;
  expect(res.statusCode).toBe(200);
  expect((res.json() as EntryNotes).markers.flatMap((m) => m.notes!).map((n) => [n.id, n.status])).toEqual([[noteId, 'converted']]);
  return held.answeredAt() - conversions.committedAt.get(noteId)!;
}

describe.each(BACKENDS)('held sync requests on %s', (kind) => {
  it('should answer a held request within 2 s of the conversion worker making its note playable', async () => {
    const t = await startRunnerApp(kind, { CONVERT_WORKER: 'on' });
    try {
      const lag = await heldUntilConverted(t, t.app);
      console.log(`sync on ${kind}: held request answered ${lag} ms after the worker committed the conversion`);
      expect(lag).toBeLessThan(2_000);
    } finally {
      await t.close();
    }
  }, 60_000);

  it('should time a held answer from the change that woke it (milenotes_sync_wake_seconds), not one that waited out its time', async () => {
    const t = await startRunnerApp(kind, { CONVERT_WORKER: 'on', METRICS: 'on' });
    try {
      const session = await t.signIn();
      const entry = await t.enter(session);
      const { cursor } = (await list(t.app, session, entry.id)).json() as EntryNotes;
      expect((await list(t.app, session, entry.id, { after: cursor, wait: 1 })).statusCode).toBe(200);
      const lag = await heldUntilConverted(t, t.app);
      const metrics = (await t.app.inject({ url: '/metrics' })).body;
      const figure = (name: string) => Number(new RegExp(`^milenotes_sync_wake_seconds_${name} (\\S+)$`, 'm').exec(metrics)?.[1]);
      expect(figure('count')).toBe(1);
      expect(figure('sum')).toBeGreaterThan(0);
      expect(figure('sum') * 1000).toBeLessThanOrEqual(lag);
    } finally {
      await t.close();
    }
  }, 60_000);

  it('should not time a held answer (until=playable) that a note only received woke and whose wait then ran out', async () => {
    const t = await startRunnerApp(kind, { METRICS: 'on' });
    try {
      const session = await t.signIn();
      const entry = await t.enter(session);
      const { cursor } = (await list(t.app, session, entry.id)).json() as EntryNotes;
      const held = list(t.app, session, entry.id, { after: cursor, wait: 2, until: 'playable' });
      await expect.poll(() => t.app.noteChanges.held(), { timeout: 10_000, interval: 10 }).toBe(1);
      // No worker here: the note stays received, the hold goes on, then its wait runs out.
      const noteId = await t.sendNote(entry.token, { convert: false });
      const res = await held;
      expect((res.json() as EntryNotes).markers.flatMap((m) => m.notes ?? [])).toMatchObject([{ id: noteId, status: 'received' }]);
      const metrics = (await t.app.inject({ url: '/metrics' })).body;
      expect(/^milenotes_sync_wake_seconds_count (\S+)$/m.exec(metrics)?.[1]).toBe('0');
    } finally {
      await t.close();
    }
  }, 60_000);

  it('should end held requests at once, with what is there, when the server closes', async () => {
    const t = await startRunnerApp(kind);
    const session = await t.signIn();
    const entry = await t.enter(session);
    const { cursor } = (await list(t.app, session, entry.id)).json() as EntryNotes;
    const held = [hold(t.app, session, entry.id, { after: cursor, wait: 30 }), hold(t.app, session, entry.id, { after: cursor, wait: 30 })];
    await expect.poll(() => t.app.noteChanges.held(), { timeout: 10_000, interval: 10 }).toBe(2);
    const closing = Date.now();
    await t.close();
    for (const h of held) {
      const res = await h.answer;
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ entryId: entry.id, markers: [], removed: [], cursor, raceStartsAt: '2099-10-11T12:30:00.000Z' });
      expect(h.answeredAt() - closing).toBeLessThan(2_000);
    }
  });

  it('should end holds that began together at different times in the last fifth of their wait, so apps in step do not ask again in one burst', async () => {
    const t = await startRunnerApp(kind);
    try {
      // Three apps, four holds each (an account's most), all asked for at once with wait=2.
      const apps = await Promise.all(
        [1, 2, 3].map(async () => {
          const session = await t.signIn();
          const entry = await t.enter(session);
          return { session, entry, cursor: ((await list(t.app, session, entry.id)).json() as EntryNotes).cursor };
        }),
      );
      const askedAt = Date.now();
      const held = apps.flatMap((a) => [1, 2, 3, 4].map(() => hold(t.app, a.session, a.entry.id, { after: a.cursor, wait: 2 })));
      for (const h of held) expect((await h.answer).json()).toMatchObject({ markers: [], removed: [] });
      const after = held.map((h) => h.answeredAt() - askedAt).sort((x, y) => x - y);
      // Each within 1.6-2 s (and the time the test takes to ask); together, not in one instant.
      expect(after[0]).toBeGreaterThanOrEqual(1_600 - 50);
      expect(after.at(-1)).toBeLessThan(2_000 + 1_000);
      expect(after.at(-1)! - after[0]!).toBeGreaterThan(50);
    } finally {
      await t.close();
    }
  });

  it('should never rate-limit held requests, end an account’s oldest past 4, and refuse 503 past the process cap', async () => {
    const t = await startRunnerApp(kind, { RATE_LIMIT_PER_MINUTE: '2', SYNC_MAX_HELD: '6' });
    try {
      const [a, b, c] = [await t.signIn(), await t.signIn(), await t.signIn()];
      const entries = [await t.enter(a), await t.enter(b), await t.enter(c)];
      const cursors = await Promise.all([a, b, c].map(async (s, i) => ((await list(t.app, s, entries[i]!.id)).json() as EntryNotes).cursor));
      const waitOn = (s: Session, i: number) => hold(t.app, s, entries[i]!.id, { after: cursors[i]!, wait: 30 });

      // One at a time, so which is the oldest is known.
      const ofA: ReturnType<typeof waitOn>[] = [];
      for (let i = 1; i <= 4; i++) {
        ofA.push(waitOn(a, 0));
        await expect.poll(() => t.app.noteChanges.held(), { timeout: 10_000, interval: 10 }).toBe(i);
      }
      // Far past the per-minute limit the recorder's routes have (2 here): sync requests are not counted.
      for (let i = 0; i < 12; i++) expect((await list(t.app, a, entries[0]!.id, { after: cursors[0]!, wait: 0 })).statusCode).toBe(200);
      const recorder = await Promise.all([1, 2, 3].map(() => t.app.inject({ url: `/api/r/${entries[0]!.token}` })));
      expect(recorder.map((r) => r.statusCode)).toContain(429);

      // A fifth of one account: its oldest answers now, with what is there.
      const fifthAt = Date.now();
      const fifth = waitOn(a, 0);
      expect((await ofA[0]!.answer).json()).toMatchObject({ markers: [], cursor: cursors[0] });
      expect(ofA[0]!.answeredAt() - fifthAt).toBeLessThan(5_000);
      await expect.poll(() => t.app.noteChanges.held(), { timeout: 10_000, interval: 10 }).toBe(4);
      expect(ofA.slice(1).every((h) => h.answeredAt() === 0)).toBe(true);

      const ofB = [waitOn(b, 1), waitOn(b, 1)];
      await expect.poll(() => t.app.noteChanges.held(), { timeout: 10_000, interval: 10 }).toBe(6);
      const refused = await list(t.app, c, entries[2]!.id, { after: cursors[2]!, wait: 30 });
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['retry-after']).toBe('5');
      expect(refused.json()).toEqual({ error: 'sync_busy', message: expect.stringContaining('ask again in a moment') });
      // Without wait nothing is held, so nothing is refused.
      expect((await list(t.app, c, entries[2]!.id, { after: cursors[2]! })).statusCode).toBe(200);

      await t.close();
      for (const h of [...ofA, fifth, ...ofB]) expect((await h.answer).statusCode).toBe(200);
    } finally {
      await t.close().catch(() => {});
    }
  });
});

describe('two servers on one PostgreSQL', () => {
  let a: RunnerTestApp;
  let b: App;
  beforeAll(async () => {
    a = await startRunnerApp('postgres', { CONVERT_WORKER: 'off' });
    b = await restartOn(a.backend, { CONVERT_WORKER: 'on' });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('should answer a request held on one within 2 s of the other converting its note (LISTEN/NOTIFY)', async () => {
    const lag = await heldUntilConverted(a, b);
    console.log(`sync across two servers: held request on A answered ${lag} ms after B committed the conversion`);
    expect(lag).toBeLessThan(2_000);
    expect(b.noteChanges.held()).toBe(0);
  }, 60_000);
});

describe('a server process stopped with SIGTERM while it holds sync requests', () => {
  it('should answer them at once with what is there and exit cleanly', async () => {
    const apple = await startFakeApple();
    const backend = await createBackend('sqlite', {
      APPLE_JWKS_URL: apple.jwksUrl,
      APPLE_AUDIENCE: apple.audience,
      SESSION_SECRET: 'sigterm-test-secret-that-is-long-enough-0123',
      METRICS: 'on',
    });
    let proc: ServerProcess | undefined;
    try {
      const race = UPCOMING.chicago;
      await runAdmin(backend.env, 'add-race', '--id', race.id, '--name', race.name, '--date', race.date, '--timezone', race.timezone, '--start', race.start);
      proc = await startServerProcess(backend.env, 60_000);
      const base = proc.base;
      const json = { 'content-type': 'application/json' };
      const signIn = await fetch(`${base}/api/auth/apple`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ identityToken: await apple.token({ sub: 'apple-sigterm' }), nonce: FAKE_APPLE_NONCE }),
      });
      const session = (await signIn.json()) as Session;
      const auth = { authorization: `Bearer ${session.accessToken}` };
      const entry = (await (
        await fetch(`${base}/api/entries`, {
          method: 'POST',
          headers: { ...json, ...auth },
          body: JSON.stringify({ raceId: UPCOMING.chicago.id, displayName: 'Alex' }),
        })
      ).json()) as { id: string };
      const { cursor } = (await (await fetch(`${base}/api/entries/${entry.id}/notes`, { headers: auth })).json()) as EntryNotes;
      let answeredAt = 0;
      const held = fetch(`${base}/api/entries/${entry.id}/notes?after=${cursor}&wait=30`, { headers: auth }).then(async (res) => {
        answeredAt = Date.now();
        return { status: res.status, body: await res.json() };
      });
      const heldNow = async () => Number(/^milenotes_sync_held_requests (\d+)$/m.exec(await (await fetch(`${base}/metrics`)).text())?.[1]);
      await expect.poll(heldNow, { timeout: 10_000, interval: 20 }).toBe(1);

      const exited = new Promise<number | null>((resolve) => proc!.child.once('exit', (code) => resolve(code)));
      const stoppedAt = Date.now();
      proc.child.kill('SIGTERM');
      expect(await held).toEqual({ status: 200, body: { entryId: entry.id, markers: [], removed: [], cursor, raceStartsAt: '2099-10-11T12:30:00.000Z' } });
      expect(answeredAt - stoppedAt).toBeLessThan(2_000);
      expect(await exited).toBe(0);
    } finally {
      if (proc) await stopGracefully(proc);
      await backend.cleanup();
      await apple.close();
    }
  }, 120_000);
});
