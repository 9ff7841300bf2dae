/**
 * The restore drill of a PostgreSQL + S3 deployment: notes sent and converted, a backup taken
 * while a server serves, the pair restored into a new, empty database and bucket, and a server
 * on the restored pair that lists, converts and plays every note; then verify-storage, clean
 * and after an object is removed.
 */
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntryNotes, Session } from '../../../contract/runnerApi.js';
import { buildApp } from '../../../server/app.js';
import { testLog } from '../support/app.js';
import { loadConfig } from '../../../server/config/index.js';
import { openBlobStore } from '../../../server/storage/index.js';
import { anyBlob } from '../../../server/storage/listing.js';
import { FAKE_APPLE_NONCE, startFakeApple, type FakeApple } from '../../../stand-ins/fakeApple.js';
import { friendNote, sendNote, type FriendNote } from '../../../stand-ins/friend.js';
import { decodedSeconds } from '../support/audio.js';
import { createBackend, type TestBackend } from '../support/backends.js';
import { runAdmin } from '../support/cli.js';
import { addUpcomingRaces, UPCOMING } from '../support/races.js';
import { startS3, type TestS3 } from '../support/s3.js';
import { uploadStream } from '../support/remote-uploads.js';
import { startServerProcess, stopGracefully, type ServerProcess } from '../../../kit/serverProcess.js';
import { fakeWebm, makeLink } from '../support/uploads.js';

const SESSION_SECRET = 'the-deployment-secret-kept-with-its-backups-0123456789';
const NOTE_SECONDS = 4;

let dir: string;
let s3: TestS3;
let apple: FakeApple;
let source: TestBackend;
let target: TestBackend;
let restored: ServerProcess | undefined;
const backends: TestBackend[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-pg-s3-backup-'));
  s3 = await startS3(['notes', 'restored', 'busy', 'busy-restored', 'never-restored']);
  apple = await startFakeApple();
  const common = { ...s3.env, SESSION_SECRET, APPLE_JWKS_URL: apple.jwksUrl, APPLE_AUDIENCE: apple.audience };
  source = await createBackend('postgres', { ...common, CONVERT_WORKER: 'on' });
  target = await createBackend('postgres', { ...common, S3_BUCKET: 'restored', CONVERT_WORKER: 'on' });
  backends.push(source, target);
});
afterAll(async () => {
  if (restored) await stopGracefully(restored);
  for (const backend of backends) await backend.cleanup();
  await apple?.close();
  await s3?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A server in this process on `env`'s storage, listening on loopback. */
async function serve(env: NodeJS.ProcessEnv): Promise<{ app: Awaited<ReturnType<typeof buildApp>>; base: string }> {
  const app = await buildApp(loadConfig(env), { logStream: testLog });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, base };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const authorized = (session: Session) => ({ authorization: `Bearer ${session.accessToken}` });

async function entryNotes(base: string, session: Session, entryId: string): Promise<NonNullable<EntryNotes['markers'][number]['notes']>> {
  const res = await fetch(`${base}/api/entries/${entryId}/notes`, { headers: authorized(session) });
  expect(res.status).toBe(200);
  return ((await res.json()) as EntryNotes).markers.flatMap((m) => m.notes ?? []);
}

/** A note's audio as the app plays it: through the signed URL its listing gives, on `base`. */
async function play(base: string, audioUrl: string): Promise<Buffer> {
  const url = new URL(audioUrl);
  const res = await fetch(`${base}${url.pathname}${url.search}`);
  expect(res.status).toBe(200);
  const bytes = Buffer.from(await res.arrayBuffer());
  expect(res.headers.get('etag')).toBe(`"${sha256(bytes)}"`);
  return bytes;
}

/** Decoded length of M4A bytes: the restored note is the friend's recording, converted. */
async function seconds(bytes: Buffer, name: string): Promise<number> {
  const file = path.join(dir, `${name}.m4a`);
  await writeFile(file, bytes);
  return decodedSeconds(file);
}

describe('backup and restore of PostgreSQL + S3', () => {
  let session: Session;
  let entryId: string;
  const sent: FriendNote[] = [];
  /** What the source server played for each converted note, by id. */
  const playedBefore = new Map<string, string>();
  const backupDir = () => path.join(dir, 'backup');

  it('should back up a serving deployment whose notes are converted and one waiting', async () => {
    // A server that converts: three notes sent and converted.
    const first = await serve(source.env);
    let serving = first.app;
    try {
      await addUpcomingRaces(first.app.repo);
      const signIn = await fetch(`${first.base}/api/auth/apple`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ identityToken: await apple.token({ sub: 'apple-runner-drill' }), nonce: FAKE_APPLE_NONCE }),
      });
      session = (await signIn.json()) as Session;
      const entry = await fetch(`${first.base}/api/entries`, {
        method: 'POST',
        headers: { ...authorized(session), 'content-type': 'application/json' },
        body: JSON.stringify({ raceId: UPCOMING.chicago.id, displayName: 'Alex' }),
      });
      expect(entry.status).toBe(201);
      const made = (await entry.json()) as { id: string; link: { token: string } };
      entryId = made.id;
      for (const marker of ['mi-5', 'mi-13', 'mi-20']) {
        const note = await friendNote(NOTE_SECONDS);
        sent.push(note);
        expect(await sendNote(first.base, made.link.token, note, { marker, from: 'Sam', deadlineMs: 20_000 })).toBeDefined();
      }
      await expect
        .poll(async () => (await entryNotes(first.base, session, entryId)).filter((n) => n.status === 'converted').length, { timeout: 30_000, interval: 100 })
        .toBe(3);
      // One more, sent to a server that does not convert: the backup holds it waiting.
      await first.app.close();
      const second = await serve({ ...source.env, CONVERT_WORKER: 'off' });
      serving = second.app;
      const waiting = await friendNote(NOTE_SECONDS);
      sent.push(waiting);
      expect(await sendNote(second.base, made.link.token, waiting, { marker: 'mi-26', from: 'Kim', deadlineMs: 20_000 })).toBeDefined();
      for (const note of await entryNotes(second.base, session, entryId)) {
        if (note.audioUrl) playedBefore.set(note.id, sha256(await play(second.base, note.audioUrl)));
      }
      expect(playedBefore.size).toBe(3);

      const made2 = await runAdmin(source.env, 'backup', '--to', backupDir());
      expect(made2.stderr).toBe('');
      expect(made2.code).toBe(0);
      // Four originals and three conversions, each copied and recorded.
      expect(JSON.parse(made2.stdout)).toMatchObject({ format: 2, database: 'postgres', notes: 4, objects: 7 });
    } finally {
      await serving.close();
    }
  }, 120_000);

  it('should restore into an empty database and bucket, where a server lists, converts and plays every note', async () => {
    const done = await runAdmin(target.env, 'restore', '--from', backupDir());
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);

    restored = await startServerProcess(target.env);
    expect((await fetch(`${restored.base}/readyz`)).status).toBe(200);
    // The runner's session and its signed audio survive: same rows, same SESSION_SECRET.
    await expect
      .poll(async () => (await entryNotes(restored!.base, session, entryId)).filter((n) => n.status === 'converted').length, { timeout: 30_000, interval: 100 })
      .toBe(4);
    const notes = await entryNotes(restored.base, session, entryId);
    expect(notes.map((n) => n.id).sort()).toEqual(sent.map((n) => n.id).sort());
    for (const note of notes) {
      const audio = await play(restored.base, note.audioUrl!);
      if (playedBefore.has(note.id)) expect(sha256(audio)).toBe(playedBefore.get(note.id));
      expect(Math.abs((await seconds(audio, note.id)) - NOTE_SECONDS)).toBeLessThan(0.3);
    }
  }, 120_000);

  it('should find the restored storage whole, then name the object removed from it', async () => {
    const clean = await runAdmin(target.env, 'verify-storage');
    expect(clean.stderr).toBe('');
    expect(clean.code).toBe(0);
    expect(JSON.parse(clean.stdout)).toMatchObject({ healthy: true, notes: 4, objects: 8, missingCount: 0, orphanCount: 0 });

    const [note] = await entryNotes(restored!.base, session, entryId);
    const row = await pgRow(target, note!.id);
    await openBlobStore(target.config).delete(row.converted_key);
    const found = await runAdmin(target.env, 'verify-storage');
    expect(found.code).toBe(1);
    expect(found.stderr).toContain(row.converted_key);
    expect(JSON.parse(found.stdout)).toMatchObject({
      healthy: false,
      missingCount: 1,
      missing: [{ noteId: note!.id, key: row.converted_key, kind: 'converted' }],
    });
  });

  it('should refuse to restore into a database or a bucket that is not empty, and change neither', async () => {
    const again = await runAdmin(target.env, 'restore', '--from', backupDir());
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/database at DATABASE_URL is not empty \(it has public\./);

    const fresh = await createBackend('postgres', { ...target.env, DATABASE_URL: undefined });
    backends.push(fresh);
    const intoFullBucket = await runAdmin(
      { ...target.env, DATABASE_URL: fresh.env.DATABASE_URL, DATA_DIR: fresh.env.DATA_DIR },
      'restore',
      '--from',
      backupDir(),
    );
    expect(intoFullBucket.code).toBe(2);
    expect(intoFullBucket.stderr).toMatch(/bucket restored is not empty/);
    expect(await tableCount(fresh)).toBe(0);
  });

  it('should back up a server taking notes into a pair whose rows and objects agree, with every note acknowledged before it', async () => {
    // As fast as the machine goes, from one address to one link: the crowd limits are lifted.
    const lifted = { UPLOADS_PER_ADDRESS: '100000', OPEN_UPLOADS_PER_ADDRESS: '100', RATE_LIMIT_PER_MINUTE: '100000', LINK_MAX_NOTES: '100000' };
    const busy = await createBackend('postgres', { ...s3.env, ...lifted, SESSION_SECRET, S3_BUCKET: 'busy' });
    const into = await createBackend('postgres', { ...s3.env, SESSION_SECRET, S3_BUCKET: 'busy-restored' });
    backends.push(busy, into);
    const server = await serve(busy.env);
    let before: Set<string>;
    try {
      const uploads = uploadStream(() => server.base, await makeLink(server.app.repo), fakeWebm());
      try {
        await expect.poll(() => uploads.acknowledged.size, { timeout: 30_000, interval: 20 }).toBeGreaterThanOrEqual(10);
        before = new Set(uploads.acknowledged.keys());
        expect(uploads.inFlight()).toBeGreaterThan(0);
        const made = await runAdmin(busy.env, 'backup', '--to', path.join(dir, 'busy-backup'));
        expect(made.stderr).toBe('');
        expect(made.code).toBe(0);
        const afterBackup = uploads.acknowledged.size;
        await expect.poll(() => uploads.acknowledged.size, { timeout: 30_000, interval: 20 }).toBeGreaterThan(afterBackup);
      } finally {
        await uploads.stop();
      }
    } finally {
      await server.app.close();
    }
    const done = await runAdmin(into.env, 'restore', '--from', path.join(dir, 'busy-backup'));
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    // No row without its object, and no object written after the dump copied as an orphan.
    const verified = await runAdmin(into.env, 'verify-storage');
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ healthy: true, orphanCount: 0 });
    const restoredIds = await withClient(into, async (c) => new Set((await c.query<{ id: string }>('SELECT id FROM notes')).rows.map((r) => r.id)));
    for (const id of before!) expect(restoredIds.has(id), `note ${id} acknowledged before the backup`).toBe(true);
  }, 120_000);

  it('should leave the database and the bucket empty when pg_restore fails', async () => {
    // A dump whose last data block is damaged, its digest recorded as if whole: pg_restore meets
    // it only after making the tables.
    const damaged = path.join(dir, 'damaged-backup');
    await cp(path.join(dir, 'busy-backup'), damaged, { recursive: true });
    const dump = await readFile(path.join(damaged, 'database.pgdump'));
    dump.fill(0x55, dump.length - 400, dump.length - 40);
    await writeFile(path.join(damaged, 'database.pgdump'), dump);
    const summary = JSON.parse(await readFile(path.join(damaged, 'milenotes-backup.json'), 'utf8'));
    await writeFile(path.join(damaged, 'milenotes-backup.json'), JSON.stringify({ ...summary, databaseSha256: sha256(dump) }));

    const into = await createBackend('postgres', { ...s3.env, SESSION_SECRET, S3_BUCKET: 'never-restored' });
    backends.push(into);
    const failed = await runAdmin(into.env, 'restore', '--from', damaged);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/pg_restore failed/);
    expect(await tableCount(into)).toBe(0);
    expect(await anyBlob(openBlobStore(into.config))).toBeUndefined();
  });

  it('should say where pg_dump was looked for when it is not there', async () => {
    const missing = await runAdmin({ ...source.env, PG_BIN: path.join(dir, 'no-postgresql') }, 'backup', '--to', path.join(dir, 'never'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /pg_dump for PostgreSQL \d+ \(the server's version\) is not at .*no-postgresql\/pg_dump\. Install Debian's postgresql-client-\d+/,
    );
  });
});

async function withClient<T>(backend: TestBackend, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: backend.env.DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const pgRow = (backend: TestBackend, noteId: string) =>
  withClient(backend, async (c) => (await c.query<{ converted_key: string }>('SELECT converted_key FROM notes WHERE id = $1', [noteId])).rows[0]!);

const tableCount = (backend: TestBackend) =>
  withClient(backend, async (c) => Number((await c.query("SELECT count(*) AS n FROM pg_tables WHERE schemaname = 'public'")).rows[0].n));
