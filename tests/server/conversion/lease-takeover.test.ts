/**
 * Two real server processes on one database (SQLite file or PostgreSQL) with the default lease:
 * the one converting keeps its job by heartbeat, stops (and writes nothing) when the job is taken
 * from it, and when it is SIGKILLed the other server finishes the note within 30 s. The first
 * server's ffmpeg is a stand-in on its PATH that never finishes, so the kill lands mid-conversion.
 */
import { randomUUID } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../server/config/index.js';
import type { Database } from '../../../server/db/driver.js';
import { openDatabase, openRepository } from '../../../server/db/index.js';
import type { Repository } from '../../../server/db/repository.js';
import { openBlobStore } from '../../../server/storage/index.js';
import { convertedKey } from '../../../server/storage/keys.js';
import { FORMATS, makeSpeech } from '../support/audio.js';
import { BACKENDS, createBackend, type TestBackend } from '../support/backends.js';
import { uploadTo } from '../support/remote-uploads.js';
import { killHard, startServerProcess, stopGracefully, type ServerProcess } from '../../../kit/serverProcess.js';
import { makeLink } from '../support/uploads.js';

const TAKEOVER_LIMIT_MS = 30_000;
let dir: string;
let speech: Buffer;
let stuckFfmpegDir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-lease-'));
  await makeSpeech(dir);
  speech = await readFile(path.join(dir, FORMATS['WebM/Opus'].file));
  // Records its pid, then never finishes: a conversion that is still running whenever we look.
  stuckFfmpegDir = path.join(dir, 'bin');
  await mkdir(stuckFfmpegDir);
  await writeFile(path.join(stuckFfmpegDir, 'ffmpeg'), '#!/bin/sh\necho $$ >> "$STUCK_FFMPEG_PIDS"\nexec sleep 600\n');
  await chmod(path.join(stuckFfmpegDir, 'ffmpeg'), 0o755);
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Running, not only a zombie waiting for whoever adopted it to reap it. */
const alive = async (pid: number) => /^\d+ \(.*\) [^Z]/.test(await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => ''));

describe.each(BACKENDS)('a conversion lease on %s', (kind) => {
  let backend: TestBackend;
  let db: Database;
  let repo: Repository;
  let token: string;
  let pidsFile: string;
  const servers: ServerProcess[] = [];
  const stuck: number[] = [];

  beforeAll(async () => {
    backend = await createBackend(kind, { CONVERT_WORKER: 'on', CONVERT_CONCURRENCY: '1' });
    expect(loadConfig(backend.env).convertLeaseMs).toBe(20_000); // the default is what is tested
    pidsFile = path.join(dir, `${kind}-ffmpeg-pids`);
    await writeFile(pidsFile, '');
    servers.push(await startServerProcess({ ...backend.env, PATH: `${stuckFfmpegDir}:${process.env.PATH}`, STUCK_FFMPEG_PIDS: pidsFile }));
    repo = await openRepository(backend.config);
    db = openDatabase(backend.config);
    token = await makeLink(repo);
  }, 120_000);
  afterAll(async () => {
    for (const s of servers) await stopGracefully(s);
    for (const pid of stuck) {
      if (await alive(pid)) process.kill(pid, 'SIGKILL');
    }
    await repo?.close();
    await db?.close();
    await backend?.cleanup();
  });

  const job = async (noteId: string) => (await db.all('SELECT attempts, locked_until, lease_owner FROM jobs WHERE note_id = ?', [noteId]))[0];
  const status = async (noteId: string) => (await repo.notes.find(noteId))?.status;

  /** Sends a note to the first server and waits until its (stuck) ffmpeg runs; returns that ffmpeg's pid. */
  async function convertingOnFirst(noteId: string): Promise<number> {
    expect((await uploadTo(servers[0]!.base, token, noteId, speech)).status).toBe(201);
    let pid = 0;
    await expect
      .poll(
        async () => {
          const pids = (await readFile(pidsFile, 'utf8')).split('\n').filter(Boolean).map(Number);
          pid = pids.find((p) => !stuck.includes(p)) ?? 0;
          return pid;
        },
        { timeout: 30_000, interval: 50 },
      )
      .toBeGreaterThan(0);
    stuck.push(pid);
    return pid;
  }

  it('should stop ffmpeg and write nothing when a heartbeat finds the job taken over', async () => {
    const noteId = randomUUID();
    const ffmpeg = await convertingOnFirst(noteId);
    // Another server's claim: a new owner and a lease of its own.
    expect(
      await db.run('UPDATE jobs SET lease_owner = ?, attempts = attempts + 1, locked_until = ? WHERE note_id = ?', [
        'another-server',
        Date.now() + 3_600_000,
        noteId,
      ]),
    ).toBe(1);
    await expect.poll(() => alive(ffmpeg), { timeout: 15_000, interval: 50 }).toBe(false);
    expect(await status(noteId)).toBe('received');
    expect(await job(noteId)).toMatchObject({ lease_owner: 'another-server' });
    expect(await openBlobStore(backend.config).exists(convertedKey(noteId))).toBe(false);
    expect(servers[0]!.child.exitCode).toBeNull();
  }, 60_000);

  it(`should have the other server finish a note within ${TAKEOVER_LIMIT_MS / 1000} s of a SIGKILL of the server converting it`, async () => {
    const noteId = randomUUID();
    const ffmpeg = await convertingOnFirst(noteId);
    // The heartbeat renews the claim while ffmpeg runs (so a conversion may outlast the lease).
    const claimed = Number((await job(noteId))!.locked_until);
    await expect.poll(async () => Number((await job(noteId))!.locked_until), { timeout: 15_000, interval: 100 }).toBeGreaterThan(claimed);
    servers.push(await startServerProcess(backend.env));
    const victim = servers.shift()!;
    await killHard(victim);
    const killedAt = Date.now();
    // Its converter process sees the server gone and stops the ffmpeg it ran: nothing converts on for nobody.
    await expect.poll(() => alive(ffmpeg), { timeout: 5_000, interval: 20 }).toBe(false);

    let retakenAt = 0;
    await expect
      .poll(
        async () => {
          const row = await job(noteId);
          if (!retakenAt && (!row || Number(row.attempts) >= 2)) retakenAt = Date.now();
          return status(noteId);
        },
        { timeout: TAKEOVER_LIMIT_MS + 15_000, interval: 100 },
      )
      .toBe('converted');
    const convertedAt = Date.now();
    console.log(
      `lease takeover on ${kind}: job retaken ${((retakenAt - killedAt) / 1000).toFixed(1)} s and the note converted ` +
        `${((convertedAt - killedAt) / 1000).toFixed(1)} s after the SIGKILL (default lease 20 s, heartbeat 5 s)`,
    );
    expect(convertedAt - killedAt).toBeLessThan(TAKEOVER_LIMIT_MS);
  }, 120_000);
});
