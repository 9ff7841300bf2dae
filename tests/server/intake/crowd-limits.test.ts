import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { openRepository } from '../../../server/db/index.js';
import { loadConfig } from '../../../server/config/index.js';
import { ApiProblem } from '../../../server/http/problem.js';
import { linkIdOf } from '../../../server/links.js';
import { createUploadQuota } from '../../../server/intake/quota.js';
import { BACKENDS, createBackend, type TestBackend } from '../support/backends.js';
import { upload, type RawAnswer } from '../support/raw-upload.js';
import { startServerProcess, stopGracefully, type ServerProcess } from '../../../kit/serverProcess.js';
import { fakeWebm, makeLink } from '../support/uploads.js';

const count = (answers: RawAnswer[], status: number, error?: string) =>
  answers.filter((a) => a.status === status && (error === undefined || a.error === error)).length;
/** What came back, for a failure's message: how many of each status and code. */
const tally = (answers: RawAnswer[]) => {
  const seen: Record<string, number> = {};
  for (const a of answers) {
    const key = `${a.status} ${a.error ?? ''}`.trim();
    seen[key] = (seen[key] ?? 0) + 1;
  }
  return JSON.stringify(seen);
};

/** Sends `jobs` `lanes` at a time, as a crowd does: many phones at once, each one note after another. */
async function inLanes<T>(jobs: (() => Promise<T>)[], lanes: number): Promise<T[]> {
  const answers: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < jobs.length) answers.push(await jobs[next++]!());
    }),
  );
  return answers;
}

describe.each(BACKENDS)('limits a crowd passes and a flood does not, on %s', (kind) => {
  let backend: TestBackend;
  let proc: ServerProcess | undefined;
  afterEach(async () => {
    if (proc) await stopGracefully(proc);
    proc = undefined;
    await backend.cleanup();
  });

  /** Links made in the server's database before it starts, and their stored notes afterwards. */
  async function links(n: number) {
    const repo = await openRepository(backend.config);
    try {
      return await Promise.all(Array.from({ length: n }, () => makeLink(repo)));
    } finally {
      await repo.close();
    }
  }
  async function storedNotes(tokens: string[]): Promise<number> {
    const repo = await openRepository(backend.config);
    try {
      let n = 0;
      for (const token of tokens) n += (await repo.notes.ofLink(linkIdOf(token))).length;
      return n;
    } finally {
      await repo.close();
    }
  }

  it('should take every note when 300 friends behind one address send to 100 links, 30 at a time, with the default limits', async () => {
    backend = await createBackend(kind);
    const tokens = await links(100);
    proc = await startServerProcess(backend.env);
    const base = proc.base;
    // One public address, as a carrier NAT gives a venue: every phone is 127.0.0.2 to the server.
    const answers = await inLanes(
      Array.from({ length: 300 }, (_, i) => () => upload({ base, token: tokens[i % 100]!, body: fakeWebm(2048), localAddress: '127.0.0.2' })),
      30,
    );
    expect(answers.filter((a) => a.status !== 201)).toEqual([]);
    expect(await storedNotes(tokens)).toBe(300);
  });

  it('should stop a flood of one link from one address at the link quota, not before', async () => {
    // The link limit lowered to stay under the per-minute request limit (120); one address alone fills it.
    backend = await createBackend(kind, { LINK_MAX_NOTES: '100' });
    const [token] = await links(1);
    proc = await startServerProcess(backend.env);
    const base = proc.base;
    const answers = await inLanes(
      Array.from({ length: 115 }, () => () => upload({ base, token: token!, body: fakeWebm(2048), localAddress: '127.0.0.3' })),
      5,
    );
    expect(count(answers, 201), tally(answers)).toBe(100);
    expect(count(answers, 429, 'link_full'), tally(answers)).toBe(15);
    expect(await storedNotes([token!])).toBe(100);
  });

  it('should bound one address sending to many links at its budget, with the code and a Retry-After, while failed attempts spend none of it', async () => {
    backend = await createBackend(kind, { UPLOADS_PER_ADDRESS: '20' });
    const tokens = await links(30);
    proc = await startServerProcess(backend.env);
    const base = proc.base;
    const from = '127.0.0.4';
    // Bodies that are not what their digest says: refused, stored nowhere, counted nowhere.
    const broken = await inLanes(
      tokens.map(
        (token) => () =>
          upload({ base, token, body: fakeWebm(2048), localAddress: from, headers: { 'content-digest': `sha-256=:${Buffer.alloc(32).toString('base64')}:` } }),
      ),
      5,
    );
    expect(count(broken, 400, 'digest_mismatch')).toBe(30);
    const answers = await inLanes(
      tokens.map((token) => () => upload({ base, token, body: fakeWebm(2048), localAddress: from })),
      5,
    );
    expect(count(answers, 201)).toBe(20);
    expect(count(answers, 429, 'address_rate_limited')).toBe(10);
    const refused = answers.find((a) => a.error === 'address_rate_limited')!;
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(600);
    expect(await storedNotes(tokens)).toBe(20);
    // Another address is not held back by this one's budget.
    expect((await upload({ base, token: tokens[0]!, body: fakeWebm(2048), localAddress: '127.0.0.5' })).status).toBe(201);
  });

  it('should count phones of one IPv6 /64 as one address, however they change addresses inside it', async () => {
    backend = await createBackend(kind, { UPLOADS_PER_ADDRESS: '5', TRUST_PROXY: '127.0.0.1' });
    const [token, other] = await links(2);
    proc = await startServerProcess(backend.env);
    const base = proc.base;
    const answers: RawAnswer[] = [];
    for (let i = 1; i <= 8; i++) {
      answers.push(await upload({ base, token: token!, body: fakeWebm(1024), headers: { 'x-forwarded-for': `2001:db8:7:1:${i.toString(16)}::${i}` } }));
    }
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201, 429, 429, 429]);
    expect(answers[5]!.error).toBe('address_rate_limited');
    // The next /64 is someone else.
    expect((await upload({ base, token: other!, body: fakeWebm(1024), headers: { 'x-forwarded-for': '2001:db8:7:2::1' } })).status).toBe(201);
  });

  it('should let one address start the default budget of 1000 notes in a window, to as many links, and refuse the next', async () => {
    backend = await createBackend(kind);
    const repo = await openRepository(backend.config);
    try {
      const limits = loadConfig(backend.env).uploads;
      expect(limits).toMatchObject({ uploadsPerAddress: 1000, uploadWindowMs: 600_000, openUploadsPerAddress: 64, linkMaxNotes: 200 });
      const quota = createUploadQuota(repo.quota, limits);
      // Resumable creations (each holds room on its own link): the path that counts a note before its bytes.
      const start = (noteId = randomUUID()) => quota.admit('198.51.100.7', { linkId: `link-${noteId}`, noteId, runnerName: 'Alex' }, 1000, 60_000);
      const first = randomUUID();
      await start(first);
      for (let i = 1; i < 1000; i++) await start();
      const refused = await start().then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(ApiProblem);
      expect((refused as ApiProblem).code).toBe('address_rate_limited');
      // A note the address already started is not counted twice: its upload created again is admitted.
      await expect(start(first)).resolves.toBeTypeOf('function');
    } finally {
      await repo.close();
    }
  });
});
