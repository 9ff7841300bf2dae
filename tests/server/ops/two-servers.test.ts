/**
 * Two server processes on one PostgreSQL database and one S3-compatible store (s3rver), as behind
 * a balancer: notes land once, convert once with both workers competing, a killed server's job is
 * taken over after the lease, a runner signed in on one is served audio by the other, and a start the
 * operator moves is given by both at once.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../../contract/runnerApi.js';
import { FAKE_APPLE_NONCE, startFakeApple, type FakeApple } from '../../../stand-ins/fakeApple.js';
import { decodedSeconds, FORMATS, makeSpeech } from '../support/audio.js';
import { createBackend, type TestBackend } from '../support/backends.js';
import { addUpcomingRaces, UPCOMING } from '../support/races.js';
import { loadConfig } from '../../../server/config/index.js';
import { openRepository } from '../../../server/db/index.js';
import { runAdmin } from '../support/cli.js';
import { uploadTo } from '../support/remote-uploads.js';
import { killHard, startServerProcess, stopGracefully, type ServerProcess } from '../../../kit/serverProcess.js';

const LEASE_MS = 10_000;

interface NotesByMarker {
  markers: { notes: { id: string; audioUrl: string | null }[] }[];
}
const PUBLIC_URL = 'https://milenotes.test';

let dir: string;
let s3: S3rver;
let s3Client: S3Client;
let apple: FakeApple;
let backend: TestBackend;
let db: pg.Client;
let env: NodeJS.ProcessEnv;
let speech: Buffer;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-two-'));
  await makeSpeech(dir);
  speech = await readFile(path.join(dir, FORMATS['WebM/Opus'].file));
  s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: path.join(dir, 's3'), configureBuckets: [{ name: 'notes' }] });
  const { port } = await s3.run();
  const endpoint = `http://127.0.0.1:${port}`;
  s3Client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  apple = await startFakeApple();
  backend = await createBackend('postgres');
  db = new pg.Client({ connectionString: backend.env.DATABASE_URL });
  await db.connect();
  env = {
    ...backend.env,
    S3_BUCKET: 'notes',
    S3_ENDPOINT: endpoint,
    S3_REGION: 'us-east-1',
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    S3_FORCE_PATH_STYLE: 'true',
    SESSION_SECRET: 'two-servers-share-this-secret-0123456789',
    APPLE_JWKS_URL: apple.jwksUrl,
    APPLE_AUDIENCE: apple.audience,
    PUBLIC_URL,
    CONVERT_WORKER: 'on',
    CONVERT_LEASE_MS: String(LEASE_MS),
    METRICS: 'on',
    // Every phone here is 127.0.0.1: the per-address limits (tested across servers in
    // tests/server/intake/quota.test.ts) would refuse most uploads of this test, which is about sharing work.
    UPLOADS_PER_ADDRESS: '1000',
    OPEN_UPLOADS_PER_ADDRESS: '100',
  };
  for (const name of ['a', 'b']) servers.push(await startServerProcess({ ...env, DATA_DIR: path.join(dir, name) }, 60_000));
  const repo = await openRepository(loadConfig(env));
  await addUpcomingRaces(repo);
  await repo.close();
}, 240_000);
afterAll(async () => {
  for (const s of servers) await stopGracefully(s);
  await db?.end();
  await backend?.cleanup();
  await apple?.close();
  await s3?.close();
  await rm(dir, { recursive: true, force: true });
});

async function objects(prefix: string): Promise<number> {
  const listed = await s3Client.send(new ListObjectsV2Command({ Bucket: 'notes', Prefix: prefix }));
  return listed.KeyCount ?? 0;
}

async function conversions(server: ServerProcess): Promise<number> {
  const text = await (await fetch(`${server.base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('milenotes_conversion_duration_seconds_count '));
  return Number(line?.split(' ')[1] ?? NaN);
}

const statuses = async (ids: string[]) => (await db.query<{ id: string; status: string }>('SELECT id, status FROM notes WHERE id = ANY($1)', [ids])).rows;

/** ffmpeg processes whose parent is `pid`, from /proc. */
/** Processes named `name` among the children of `parent` (by /proc's parent pid). */
async function childrenNamed(parent: number, name?: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const match = /^\d+ \((.*)\) \S (\d+)/.exec(stat);
    if (match && (name === undefined || match[1] === name) && Number(match[2]) === parent) found.push(Number(entry));
  }
  return found;
}

/** The ffmpeg runs of a server: children of its converter process, itself a child of the server. */
async function ffmpegOf(server: number): Promise<number[]> {
  const children = await childrenNamed(server);
  return (await Promise.all(children.map((c) => childrenNamed(c, 'ffmpeg')))).flat();
}

const alive = async (pid: number) => /^\d+ \(.*\) [^Z]/.test(await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => ''));

describe('two servers on one PostgreSQL and one S3 store', () => {
  let session: Session;
  let entry: { id: string; token: string };
  const noteIds: string[] = [];

  it('should store each note once and convert it once while both take uploads and both workers compete', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess];
    const signIn = await fetch(`${a.base}/api/auth/apple`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ identityToken: await apple.token({ sub: `apple-${randomUUID()}` }), nonce: FAKE_APPLE_NONCE }),
    });
    expect(signIn.status).toBe(200);
    session = (await signIn.json()) as Session;
    const made = await fetch(`${a.base}/api/entries`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${session.accessToken}` },
      body: JSON.stringify({ raceId: UPCOMING.chicago.id, displayName: 'Alex' }),
    });
    expect(made.status).toBe(201);
    const body = (await made.json()) as { id: string; link: { token: string } };
    entry = { id: body.id, token: body.link.token };

    // 12 notes sent to both servers at once (a retry landing elsewhere), 8 to one or the other.
    const uploads: Promise<void>[] = [];
    for (let i = 0; i < 20; i++) {
      const noteId = randomUUID();
      noteIds.push(noteId);
      const targets = i < 12 ? [a, b] : [i % 2 ? a : b];
      uploads.push(
        (async () => {
          const answers = await Promise.all(targets.map((s) => uploadTo(s.base, entry.token, noteId, speech)));
          expect(
            answers.map((x) => x.status),
            JSON.stringify(answers.map((x) => x.problem)),
          ).toEqual(targets.map(() => 201));
          expect(new Set(answers.map((x) => JSON.stringify(x.receipt))).size).toBe(1);
        })(),
      );
    }
    await Promise.all(uploads);

    await expect.poll(async () => (await statuses(noteIds)).filter((n) => n.status === 'converted').length, { timeout: 120_000, interval: 250 }).toBe(20);
    const perServer = [await conversions(a), await conversions(b)];
    console.log(
      `two servers: 20 notes (12 sent to both), rows ${(await statuses(noteIds)).length}, originals ${await objects('originals/')}, ` +
        `converted files ${await objects('converted/')}, conversions by server A ${perServer[0]} and B ${perServer[1]}`,
    );
    expect((await statuses(noteIds)).length).toBe(20);
    expect(await objects('originals/')).toBe(20);
    expect(await objects('converted/')).toBe(20);
    expect(perServer[0]! + perServer[1]!).toBe(20);
    expect(perServer[0]).toBeGreaterThan(0);
    expect(perServer[1]).toBeGreaterThan(0);
  }, 240_000);

  it('should serve a runner signed in on one server the audio through the other', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess];
    const listed = await fetch(`${b.base}/api/entries/${entry.id}/notes`, { headers: { authorization: `Bearer ${session.accessToken}` } });
    expect(listed.status).toBe(200);
    const audioUrlOf = async (res: Response) =>
      ((await res.json()) as NotesByMarker).markers.flatMap((m) => m.notes).find((n) => n.id === noteIds[0])!.audioUrl;
    const signedByB = await audioUrlOf(listed);
    expect(signedByB).toMatch(/^https:\/\/milenotes\.test\//);
    // Signed by B, played from A; and signed by A, played from B.
    const fromA = await fetch(signedByB!.replace(PUBLIC_URL, a.base));
    expect(fromA.status).toBe(200);
    const signedByA = await audioUrlOf(await fetch(`${a.base}/api/entries/${entry.id}/notes`, { headers: { authorization: `Bearer ${session.accessToken}` } }));
    const fromB = await fetch(signedByA!.replace(PUBLIC_URL, b.base));
    expect(fromB.status).toBe(200);
    expect(fromB.headers.get('content-type')).toContain('audio/mp4');
    const file = path.join(dir, 'played.m4a');
    await writeFile(file, Buffer.from(await fromB.arrayBuffer()));
    expect(await decodedSeconds(file)).toBeGreaterThan(1);
  });

  it('should give a start the operator moves on both servers at once: the race list, the recorder’s link and the app’s sync', async () => {
    const edited = await runAdmin(env, 'edit-race', '--id', UPCOMING.chicago.id, '--start', '08:15');
    expect(edited.code, edited.stderr).toBe(0);
    const startsAt = '2099-10-11T13:15:00.000Z';
    const auth = { authorization: `Bearer ${session.accessToken}` };
    for (const s of servers) {
      const races = await fetch(`${s.base}/api/races`);
      expect(races.headers.get('cache-control')).toBe('no-store');
      expect(((await races.json()) as { races: Array<{ id: string }> }).races.find((r) => r.id === UPCOMING.chicago.id)).toMatchObject({
        startsAt,
        when: 'upcoming',
      });
      expect(((await (await fetch(`${s.base}/api/r/${entry.token}`)).json()) as { race: object }).race).toMatchObject({ startsAt, when: 'upcoming' });
      expect(
        ((await (await fetch(`${s.base}/api/entries/${entry.id}/notes?summary=1`, { headers: auth })).json()) as { raceStartsAt: string }).raceStartsAt,
      ).toBe(startsAt);
    }
  });

  it('should have the other server take over the job of a server killed in the middle of a conversion, after the lease', async () => {
    // About 40 s of sound: long enough to catch ffmpeg at work.
    const long = path.join(dir, 'long.webm');
    await promisify(execFile)('ffmpeg', [
      '-nostdin',
      '-loglevel',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=330:duration=40',
      '-ac',
      '1',
      '-ar',
      '48000',
      '-c:a',
      'libopus',
      '-b:a',
      '24k',
      '-f',
      'webm',
      long,
    ]);
    const noteId = randomUUID();
    expect((await uploadTo(servers[0]!.base, entry.token, noteId, await readFile(long))).status).toBe(201);

    let victim: ServerProcess | undefined;
    let tools: number[] = [];
    await expect
      .poll(
        async () => {
          for (const s of servers) {
            const running = await ffmpegOf(s.child.pid!);
            if (running.length > 0) [victim, tools] = [s, running];
          }
          return victim !== undefined;
        },
        { timeout: 30_000, interval: 10 },
      )
      .toBe(true);
    const survivor = servers.find((s) => s !== victim)!;
    const before = await conversions(survivor);
    await killHard(victim!);
    const killedAt = Date.now();
    // Its converter process sees the server gone and stops its ffmpeg: nothing converts on for nobody.
    await expect.poll(async () => (await Promise.all(tools.map(alive))).some(Boolean), { timeout: 5_000, interval: 20 }).toBe(false);
    servers.splice(servers.indexOf(victim!), 1);

    let retakenAt = 0;
    await expect
      .poll(
        async () => {
          const { rows } = await db.query<{ attempts: number }>('SELECT attempts FROM jobs WHERE note_id = $1', [noteId]);
          if (!retakenAt && (rows.length === 0 || rows[0]!.attempts >= 2)) retakenAt = Date.now();
          return (await statuses([noteId]))[0]?.status;
        },
        { timeout: LEASE_MS + 60_000, interval: 50 },
      )
      .toBe('converted');
    const convertedAt = Date.now();
    console.log(
      `two servers: job of the killed server retaken ${((retakenAt - killedAt) / 1000).toFixed(1)} s after the kill ` +
        `(lease ${LEASE_MS / 1000} s), converted ${((convertedAt - killedAt) / 1000).toFixed(1)} s after the kill`,
    );
    expect(retakenAt - killedAt).toBeLessThan(LEASE_MS + 10_000);
    expect(await conversions(survivor)).toBe(before + 1);
    expect(await objects('converted/')).toBe(21);
  }, 180_000);
});
