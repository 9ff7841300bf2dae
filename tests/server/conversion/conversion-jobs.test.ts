import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openRepository } from '../../../server/db/index.js';
import type { ClaimedJob, NoteRow, Repository } from '../../../server/db/repository.js';
import { linkIdOf } from '../../../server/links.js';
import type { BlobStore } from '../../../server/storage/blob-store.js';
import { openBlobStore } from '../../../server/storage/index.js';
import { MAX_ATTEMPTS, startConversionWorker, type ConversionWorker } from '../../../server/conversion/worker.js';
import { queueNote as queueWithDeadline } from '../../../server/races/note-deadlines.js';
import { BACKENDS, createBackend, type TestBackend } from '../support/backends.js';
import { FORMATS, makeSpeech } from '../support/audio.js';
import { makeLink, sha256Hex } from '../support/uploads.js';

const log = Fastify({ logger: { level: 'silent' } }).log;
let dir: string;
let speech: Buffer;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-jobs-'));
  await makeSpeech(dir);
  speech = await readFile(path.join(dir, FORMATS['WebM/Opus'].file));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

interface Claim extends ClaimedJob {
  at: number;
  by: string;
}

describe.each(BACKENDS)('conversion jobs on %s', (kind) => {
  let backend: TestBackend;
  let repo: Repository;
  let blobs: BlobStore;
  let token: string;
  const open: Repository[] = [];
  const workers: ConversionWorker[] = [];

  beforeAll(async () => {
    backend = await createBackend(kind);
    repo = await openRepository(backend.config);
    open.push(repo);
    blobs = openBlobStore(backend.config);
    token = await makeLink(repo);
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    for (const r of open) await r.close();
    await backend.cleanup();
  });

  /** A note as the upload route leaves it: the original stored, the row and its job committed. */
  async function queueNote(body = speech): Promise<string> {
    const id = randomUUID();
    const originalKey = `originals/${id}.${sha256Hex(body)}.test`;
    await blobs.put(originalKey, Readable.from([body]), { maxBytes: 4e6 });
    await queueWithDeadline(
      repo,
      {
        id,
        linkId: linkIdOf(token),
        marker: 'mi-13',
        from: 'Sam',
        contentType: 'audio/webm',
        bytes: body.length,
        sha256: sha256Hex(body),
        originalKey,
        receivedAt: new Date().toISOString(),
      },
      (queued) => repo.notes.insert(queued),
    );
    return id;
  }

  /** A worker on its own database connection, as on another server, recording what it claims and converts. */
  async function startWorker(
    name: string,
    claims: Claim[],
    converted: string[],
    opts: { blobs?: BlobStore; leaseMs?: number; ffmpegTimeoutMs?: number; concurrency?: number } = {},
  ) {
    const own = await openRepository(backend.config);
    open.push(own);
    const watched: Repository = {
      ...own,
      jobs: {
        ...own.jobs,
        claim: async (now: number, leaseMs: number) => {
          const job = await own.jobs.claim(now, leaseMs);
          if (job) claims.push({ ...job, at: Date.now(), by: name });
          return job;
        },
        markConverted: async (id, ...rest) => {
          converted.push(id);
          return own.jobs.markConverted(id, ...rest);
        },
      },
    };
    const worker = startConversionWorker({
      repo: watched,
      blobs: opts.blobs ?? blobs,
      log,
      pollMs: 20,
      maxNoteSeconds: 75,
      ffmpegTimeoutMs: opts.ffmpegTimeoutMs ?? 30_000,
      leaseMs: opts.leaseMs,
      concurrency: opts.concurrency ?? 1,
    });
    workers.push(worker);
    return worker;
  }

  const settled = (id: string) =>
    vi.waitFor(
      async () => {
        const note = await repo.notes.find(id);
        if (!note || note.status === 'received') throw new Error(`note ${id} is still waiting`);
        return note;
      },
      { timeout: 60_000, interval: 50 },
    ) as Promise<NoteRow>;

  it('should convert each note once when two workers race for the jobs', async () => {
    const ids = [await queueNote(), await queueNote(), await queueNote(), await queueNote()];
    const claims: Claim[] = [];
    const converted: string[] = [];
    const a = await startWorker('a', claims, converted, { concurrency: 2 });
    const b = await startWorker('b', claims, converted, { concurrency: 2 });
    a.nudge();
    b.nudge();
    for (const id of ids) expect((await settled(id)).status).toBe('converted');
    await Promise.all([a.stop(), b.stop()]);
    expect(converted.sort()).toEqual([...ids].sort());
    expect(claims.map((c) => [c.noteId, c.attempts]).sort()).toEqual(ids.map((id) => [id, 1]).sort());
  });

  it('should take a job again once the lease of a worker that stalled has run out', async () => {
    const id = await queueNote();
    const stalled = await repo.jobs.claim(Date.now(), 1_500);
    expect(stalled).toMatchObject({ noteId: id, attempts: 1 });
    const leaseEnds = Date.now() + 1_500;
    const claims: Claim[] = [];
    const worker = await startWorker('rescuer', claims, []);
    expect((await settled(id)).status).toBe('converted');
    await worker.stop();
    expect(claims.map((c) => [c.noteId, c.attempts])).toEqual([[id, 2]]);
    expect(claims[0]!.at).toBeGreaterThanOrEqual(leaseEnds - 1_000);
  });

  it(`should give up after ${MAX_ATTEMPTS} failed attempts and mark the note failed with the reason`, async () => {
    const id = await queueNote();
    const unreachable: BlobStore = {
      ...blobs,
      get: async () => {
        throw new Error('the bucket is unreachable');
      },
    };
    const claims: Claim[] = [];
    const worker = await startWorker('flaky', claims, [], { blobs: unreachable, leaseMs: 200 });
    const note = await settled(id);
    await worker.stop();
    expect(note.status).toBe('failed');
    expect(note.failureReason).toBe(`Conversion gave up after ${MAX_ATTEMPTS} attempts: the bucket is unreachable`);
    expect(claims.map((c) => c.attempts)).toEqual([1, 2, 3]);
    expect(await repo.jobs.claim(Date.now() + 3_600_000, 1)).toBeUndefined(); // no job left to retry for ever
  });

  it('should give up, not convert again, after a converter that died during each attempt', async () => {
    const id = await queueNote();
    // Three claims whose worker never reported back, each lease long run out.
    const past = Date.now() - 60_000;
    for (let i = 0; i < MAX_ATTEMPTS; i++) expect((await repo.jobs.claim(past + i * 10, 5))?.attempts).toBe(i + 1);
    const converted: string[] = [];
    const worker = await startWorker('after-crashes', [], converted);
    const note = await settled(id);
    await worker.stop();
    expect(note.status).toBe('failed');
    expect(note.failureReason).toMatch(/gave up after 3 attempts: the converter stopped during each/);
    expect(converted).toEqual([]);
  });

  it('should stop a conversion at its time limit and, after the last attempt, fail the note with that reason', async () => {
    const id = await queueNote();
    const claims: Claim[] = [];
    const worker = await startWorker('hurried', claims, [], { ffmpegTimeoutMs: 5, leaseMs: 200 });
    const note = await settled(id);
    await worker.stop();
    expect(note.status).toBe('failed');
    expect(note.failureReason).toMatch(/^Conversion gave up after 3 attempts: ff(mpeg|probe) took longer than 5 ms and was stopped$/);
    expect(claims).toHaveLength(MAX_ATTEMPTS);
  });
});
