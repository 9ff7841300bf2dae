import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import Database from 'better-sqlite3';
import pg from 'pg';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteRunnerAccount } from '../../../server/runner/deletion.js';
import { makeSpeech } from '../support/audio.js';
import type { BackendKind } from '../support/backends.js';
import { digestOf } from '../support/uploads.js';
import { startRunnerApp, type RunnerTestApp } from './support.js';

let dir: string;
let s3: S3rver;
let s3Port: number;
let speech: Buffer;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-deletion-'));
  s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: path.join(dir, 's3'), configureBuckets: [{ name: 'notes' }] });
  ({ port: s3Port } = await s3.run());
  await makeSpeech(dir);
  speech = await readFile(path.join(dir, 'speech.webm'));
});
afterAll(async () => {
  await s3.close();
  await rm(dir, { recursive: true, force: true });
});

/** Every row, as `table:primary key`, so a test can see exactly what is left. */
async function allRows(t: RunnerTestApp, kind: BackendKind): Promise<string[]> {
  const tables: [string, string][] = [
    ['accounts', 'id'],
    ['sessions', 'id'],
    ['entries', 'id'],
    ['runners', 'id'],
    ['links', 'id'],
    ['notes', 'id'],
    ['jobs', 'note_id'],
    ['note_plays', 'note_id'],
    ['shares', 'id'],
    ['uploads', 'note_id'],
    ['upload_parts', 'note_id'],
  ];
  const rows: string[] = [];
  if (kind === 'sqlite') {
    const db = new Database(path.join(t.backend.config.dataDir, 'milenotes.sqlite'), { readonly: true });
    for (const [table, key] of tables) for (const r of db.prepare(`SELECT ${key} AS k FROM ${table}`).all() as { k: string }[]) rows.push(`${table}:${r.k}`);
    db.close();
  } else {
    const client = new pg.Client({ connectionString: t.backend.config.databaseUrl });
    await client.connect();
    for (const [table, key] of tables) for (const r of (await client.query(`SELECT ${key} AS k FROM ${table}`)).rows) rows.push(`${table}:${r.k}`);
    await client.end();
  }
  return rows;
}

async function allFiles(t: RunnerTestApp, storage: 'disk' | 'S3'): Promise<string[]> {
  if (storage === 'disk') {
    const root = path.join(t.backend.config.dataDir, 'blobs');
    const entries = await readdir(root, { recursive: true, withFileTypes: true });
    return entries.filter((e) => e.isFile()).map((e) => path.relative(root, path.join(e.parentPath, e.name)));
  }
  const client = new S3Client({
    endpoint: `http://127.0.0.1:${s3Port}`,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  const listed = await client.send(new ListObjectsV2Command({ Bucket: 'notes' }));
  client.destroy();
  return (listed.Contents ?? []).map((o) => o.Key!);
}

describe.each([
  ['sqlite', 'disk'],
  ['postgres', 'S3'],
] as const)('DELETE /api/me on %s with audio on %s', (kind, storage) => {
  let t: RunnerTestApp;
  beforeAll(async () => {
    const extra =
      storage === 'S3'
        ? {
            S3_BUCKET: 'notes',
            S3_ENDPOINT: `http://127.0.0.1:${s3Port}`,
            S3_ACCESS_KEY_ID: 'S3RVER',
            S3_SECRET_ACCESS_KEY: 'S3RVER',
            S3_FORCE_PATH_STYLE: 'true',
          }
        : {};
    t = await startRunnerApp(kind, { CONVERT_WORKER: 'on', ...extra });
  });
  afterAll(() => t.close());

  async function runnerWithNotes(name: string) {
    const session = await t.signIn();
    const entry = await t.enter(session, 'chicago-2099', name);
    const ids: string[] = [];
    for (const marker of ['mi-5', 'mi-20']) {
      const noteId = crypto.randomUUID();
      const res = await t.app.inject({
        method: 'PUT',
        url: `/api/r/${entry.token}/notes/${noteId}?marker=${marker}&from=Sam`,
        headers: { 'content-type': 'audio/webm;codecs=opus', 'content-digest': digestOf(speech) },
        payload: speech,
      });
      expect(res.statusCode, res.body).toBe(201);
      ids.push(noteId);
    }
    // The real conversion worker (ffmpeg) makes the M4A files; wait until both are there.
    await expect
      .poll(
        async () => {
          const notes = (await t.call(session, 'GET', `/api/entries/${entry.id}/notes`)).json();
          return notes.markers.flatMap((m: { notes: { status: string }[] }) => m.notes.map((n) => n.status));
        },
        { timeout: 30_000, interval: 100 },
      )
      .toEqual(['converted', 'converted']);
    await t.call(session, 'POST', `/api/notes/${ids[0]}/played`, { playedAt: new Date().toISOString(), marker: 'mi-5' });
    await t.call(session, 'POST', '/api/shares', { entryId: entry.id });
    await t.call(session, 'POST', '/api/shares', { noteId: ids[1] });
    // A note still on its way: a resumable upload holding its first part.
    const unfinished = crypto.randomUUID();
    const partial = await t.app.inject({
      method: 'PUT',
      url: `/api/r/${entry.token}/notes/${unfinished}?marker=mi-13&from=Sam`,
      headers: {
        'content-type': 'audio/webm;codecs=opus',
        'content-digest': digestOf(speech),
        'upload-complete': '?0',
        'upload-length': String(speech.length),
      },
      payload: speech.subarray(0, 1000),
    });
    expect(partial.statusCode, partial.body).toBe(201);
    expect(partial.headers['upload-offset']).toBe('1000');
    await t.call(session, 'POST', `/api/entries/${entry.id}/link`);
    return { session, entry, ids, unfinished };
  }

  it('should leave no row and no file of the runner, and keep everyone else’s', async () => {
    const leaving = await runnerWithNotes('Leaving');
    const staying = await runnerWithNotes('Staying');
    const shareUrl = (await t.call(leaving.session, 'POST', '/api/shares', { entryId: leaving.entry.id })).json().url as string;
    const rowsBefore = await allRows(t, kind);
    const filesBefore = await allFiles(t, storage);
    const isLeavingNote = (f: string) => [...leaving.ids, leaving.unfinished].some((id) => f.includes(id));
    expect(filesBefore.filter(isLeavingNote)).toHaveLength(5); // two originals, two M4As, one part of an unfinished upload

    const res = await t.call(leaving.session, 'DELETE', '/api/me');
    expect(res.statusCode).toBe(204);

    const filesAfter = await allFiles(t, storage);
    expect(filesAfter.sort()).toEqual(filesBefore.filter((f) => !isLeavingNote(f)).sort());
    const rowsAfter = await allRows(t, kind);
    expect(rowsAfter.filter((r) => !rowsBefore.includes(r))).toEqual([]);
    const perTable = (rows: string[]) => {
      const n: Record<string, number> = {};
      for (const r of rows) n[r.split(':')[0]!] = (n[r.split(':')[0]!] ?? 0) + 1;
      return n;
    };
    // Exactly one runner's worth went: account, session, entry, its runners row, old and new link, two notes, the receipt,
    // three shares, and the unfinished upload with its part.
    const removed = { accounts: 1, sessions: 1, entries: 1, runners: 1, links: 2, notes: 2, note_plays: 1, shares: 3, uploads: 1, upload_parts: 1 };
    expect(perTable(rowsBefore.filter((r) => !rowsAfter.includes(r)))).toEqual(removed);
    expect(rowsAfter).toContain(`accounts:${staying.session.runner.id}`);
    expect(rowsAfter).toContain(`entries:${staying.entry.id}`);
    expect(rowsAfter.join(' ')).not.toMatch(new RegExp([leaving.session.runner.id, leaving.entry.id, ...leaving.ids, leaving.unfinished].join('|')));

    // Their links, share and session answer 404/401 now.
    expect((await t.app.inject({ url: `/api/r/${leaving.entry.token}` })).statusCode).toBe(404);
    expect((await t.app.inject({ url: `/api/s/${shareUrl.split('/s/')[1]}` })).statusCode).toBe(404);
    expect((await t.call(leaving.session, 'GET', '/api/entries')).statusCode).toBe(401);
    const refresh = await t.app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refreshToken: leaving.session.refreshToken } });
    expect(refresh.statusCode).toBe(401);
    // The other runner's notes still play.
    const kept = (await t.call(staying.session, 'GET', `/api/entries/${staying.entry.id}/notes`)).json();
    const audio = await t.app.inject({ url: new URL(kept.markers[0].notes[0].audioUrl).pathname + new URL(kept.markers[0].notes[0].audioUrl).search });
    expect(audio.statusCode).toBe(200);
  });

  it('should also delete the files of a note that arrived after the files were listed', async () => {
    const session = await t.signIn();
    const entry = await t.enter(session);
    const noteId = await t.sendNote(entry.token);
    expect((await allFiles(t, storage)).filter((f) => f.includes(noteId))).toHaveLength(2);
    // As if the note's row was committed just after deletion listed the account's files.
    const repo = { ...t.app.repo, deletion: { ...t.app.repo.deletion, blobKeys: async () => [] } };
    await deleteRunnerAccount(repo, t.app.blobs, session.runner.id);
    expect((await allFiles(t, storage)).filter((f) => f.includes(noteId))).toEqual([]);
    expect((await allRows(t, kind)).filter((r) => r.includes(noteId))).toEqual([]);
  });
});
