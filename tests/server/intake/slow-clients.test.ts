import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import type http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterEach, describe, expect, it } from 'vitest';
import { openRepository } from '../../../server/db/index.js';
import { linkIdOf } from '../../../server/links.js';
import { createBackend, type TestBackend } from '../support/backends.js';
import { upload, uploadRequest, type RawAnswer } from '../support/raw-upload.js';
import { startServerProcess, stopGracefully, type ServerProcess } from '../../../kit/serverProcess.js';
import { fakeWebm, makeLink } from '../support/uploads.js';

/** Resolves when the server ends the connection (or answers): what a stalled client sees. */
const ended = (req: http.ClientRequest) => new Promise<void>((resolve) => req.once('close', () => resolve()));

/** Polls a state the server reaches on its own (a file removed, a slot freed); fails after `ms`. */
async function eventually(what: string, check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`never came: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const filesIn = async (dir: string) => (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.part'));

describe('slow and stalled uploads against a real server process', () => {
  let backend: TestBackend;
  let proc: ServerProcess | undefined;
  let token: string;
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    if (proc) await stopGracefully(proc);
    proc = undefined;
    for (const c of cleanups.splice(0)) await c();
    await backend.cleanup();
  });

  async function start(env: NodeJS.ProcessEnv = {}) {
    backend = await createBackend('sqlite', env);
    const repo = await openRepository(backend.config);
    token = await makeLink(repo);
    await repo.close();
    proc = await startServerProcess(backend.env);
    return proc;
  }

  it('should end an upload silent for 30 s and remove its partial file, while a phone at 20 kbit/s for 64 s gets through', async () => {
    const { base } = await start();
    const incoming = path.join(backend.config.dataDir, 'blobs', '.incoming');

    const stalledBody = fakeWebm(100_000);
    let stalledAnswer: RawAnswer | undefined;
    const stalled = uploadRequest({ base, token, body: stalledBody, localAddress: '127.0.0.21' }, (a) => (stalledAnswer = a));
    stalled.write(stalledBody.subarray(0, 300));
    const stalledEnded = ended(stalled);
    await eventually('the stalled upload has a partial file', async () => (await filesIn(incoming)).length === 1);

    // 2.5 KB a second, 160 KB in all: a phone on one bar, never silent for long.
    const slowBody = fakeWebm(160_000);
    const slowAnswer = new Promise<RawAnswer>((resolve) => {
      const slow = uploadRequest({ base, token, body: slowBody, localAddress: '127.0.0.22' }, resolve);
      let sent = 0;
      const tick = setInterval(() => {
        const chunk = slowBody.subarray(sent, sent + 2500);
        sent += chunk.length;
        if (sent >= slowBody.length) {
          clearInterval(tick);
          slow.end(chunk);
        } else slow.write(chunk);
      }, 1000);
    });

    const startedAt = Date.now();
    await stalledEnded;
    const stalledFor = Date.now() - startedAt;
    expect(stalledAnswer?.status ?? 0).toBe(0);
    expect(stalledFor).toBeGreaterThan(25_000);
    await eventually('only the slow upload has a partial file', async () => (await filesIn(incoming)).length <= 1);
    const slow = await slowAnswer;
    expect(slow.status).toBe(201);
    const repo = await openRepository(backend.config);
    try {
      const notes = await repo.notes.ofLink(linkIdOf(token));
      expect(notes.map((n) => n.bytes)).toEqual([160_000]);
    } finally {
      await repo.close();
    }
    await eventually('no partial file', async () => (await filesIn(incoming)).length === 0);
  }, 120_000);

  it('should end a stalled upload to S3, with and without a length, release what it held and keep serving', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-s3-'));
    const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: path.join(dir, 's3'), configureBuckets: [{ name: 'notes' }] });
    const { port } = await s3.run();
    const spoolDir = path.join(dir, 'tmp');
    await import('node:fs/promises').then((fs) => fs.mkdir(spoolDir));
    cleanups.push(async () => {
      await s3.close();
      await rm(dir, { recursive: true, force: true });
    });
    const endpoint = `http://127.0.0.1:${port}`;
    const { base } = await start({
      S3_BUCKET: 'notes',
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
      IDLE_TIMEOUT_MS: '1500',
      TMPDIR: spoolDir,
    });
    const body = fakeWebm(100_000);
    const withLength = uploadRequest({ base, token, body }, () => {});
    const chunked = uploadRequest({ base, token, body, headers: { 'content-length': '', 'transfer-encoding': 'chunked' } }, () => {});
    chunked.removeHeader('content-length');
    for (const req of [withLength, chunked]) req.write(body.subarray(0, 4096));
    // Both wait on local disk, with a length or not: S3 is only called once a body is whole.
    await eventually('both uploads spool', async () => (await filesIn(spoolDir)).length === 2);
    await Promise.all([ended(withLength), ended(chunked)]);
    await eventually('the spool file is removed', async () => (await filesIn(spoolDir)).length === 0);
    // Nothing is held for them any more: their reservations on the link are released.
    const repo = await openRepository(backend.config);
    try {
      await eventually('the reservations are released', async () => (await repo.quota.usage(linkIdOf(token), Date.now())).notes === 0);
    } finally {
      await repo.close();
    }
    // Neither reached S3: a stalled phone never holds a request to S3 open, nor leaves half an object there.
    const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    expect((await client.send(new ListObjectsV2Command({ Bucket: 'notes' }))).Contents ?? []).toEqual([]);
    // The server is still up (a hang-up mid-upload to S3 used to crash it) and takes the next note.
    expect((await upload({ base, token, body: fakeWebm(2048) })).status).toBe(201);
  });

  it('should close a connection whose headers are still arriving after the header time limit', async () => {
    const { base } = await start({ HEADERS_TIMEOUT_MS: '1000' });
    const socket = net.connect(Number(new URL(base).port), '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8').on('data', (d: string) => (answer += d));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(`PUT /api/r/${token}/notes/${randomUUID()}?marker=mi-13&from=Sam HTTP/1.1\r\nHost: x\r\n`);
    // One header byte every 200 ms: never idle, never done.
    const drip = setInterval(() => socket.writable && socket.write('X-Slow: a\r\n'), 200);
    try {
      await closed;
    } finally {
      clearInterval(drip);
    }
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('should let one address hold only a few uploads open, and free its slots when they end', async () => {
    const { base } = await start({ OPEN_UPLOADS_PER_ADDRESS: '3' });
    const body = fakeWebm(100_000);
    const held = [0, 1, 2].map(() => {
      const req = uploadRequest({ base, token, body, localAddress: '127.0.0.31' }, () => {});
      req.write(body.subarray(0, 1000));
      return req;
    });
    // An empty upload is answered at once; it is refused for the slot only once all three are counted.
    const probe = (localAddress: string) => upload({ base, token, body: Buffer.alloc(0), localAddress });
    await eventually('all three uploads are counted', async () => (await probe('127.0.0.31')).error === 'too_many_open_uploads');
    const refused = await upload({ base, token, body: fakeWebm(2048), localAddress: '127.0.0.31' });
    expect(refused).toMatchObject({ status: 429, error: 'too_many_open_uploads', retryAfter: '5' });
    expect((await upload({ base, token, body: fakeWebm(2048), localAddress: '127.0.0.32' })).status).toBe(201);
    for (const req of held) req.destroy();
    await eventually('the slots are free again', async () => (await probe('127.0.0.31')).error !== 'too_many_open_uploads');
    expect((await upload({ base, token, body: fakeWebm(2048), localAddress: '127.0.0.31' })).status).toBe(201);
  });
});
