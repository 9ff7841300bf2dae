import { afterEach, describe, expect, it } from 'vitest';
import { openRepository } from '../../../server/db/index.js';
import { linkIdOf } from '../../../server/links.js';
import { BACKENDS, createBackend, type TestBackend } from '../support/backends.js';
import { upload, type RawAnswer } from '../support/raw-upload.js';
import { startServerProcess, stopGracefully, type ServerProcess } from '../../../kit/serverProcess.js';
import { fakeWebm, makeLink } from '../support/uploads.js';

const count = (answers: RawAnswer[], status: number, error?: string) =>
  answers.filter((a) => a.status === status && (error === undefined || a.error === error)).length;

/** A link made in the server's database, and a way to count its notes afterwards. */
async function linkOn(backend: TestBackend) {
  const repo = await openRepository(backend.config);
  const token = await makeLink(repo);
  await repo.close();
  return {
    token,
    async storedNotes() {
      const r = await openRepository(backend.config);
      try {
        return (await r.notes.ofLink(linkIdOf(token))).length;
      } finally {
        await r.close();
      }
    },
  };
}

describe.each(BACKENDS)('a flood of one link from many addresses on %s', (kind) => {
  let backend: TestBackend;
  let proc: ServerProcess | undefined;
  afterEach(async () => {
    if (proc) await stopGracefully(proc);
    await backend.cleanup();
  });

  it('should store exactly the link limit of 200 notes out of 250 sent from 25 loopback addresses', async () => {
    backend = await createBackend(kind);
    const link = await linkOn(backend);
    proc = await startServerProcess(backend.env);
    const answers: RawAnswer[] = [];
    // Each address sends 10 notes in two lanes: a flood, yet under the per-address limits.
    await Promise.all(
      Array.from({ length: 25 }, (_, a) =>
        Promise.all(
          [0, 1].map(async () => {
            for (let i = 0; i < 5; i++) {
              answers.push(await upload({ base: proc!.base, token: link.token, body: fakeWebm(2048), localAddress: `127.0.0.${a + 2}` }));
            }
          }),
        ),
      ),
    );
    expect(count(answers, 201)).toBe(200);
    expect(count(answers, 429, 'link_full')).toBe(50);
    expect(answers.find((a) => a.error === 'link_full')!.retryAfter).toMatch(/^\d+$/);
    expect(await link.storedNotes()).toBe(200);
  });
});

describe('the client address', () => {
  let backend: TestBackend;
  let proc: ServerProcess | undefined;
  afterEach(async () => {
    if (proc) await stopGracefully(proc);
    await backend.cleanup();
  });

  const rotating = async (token: string, n: number) => {
    const answers: RawAnswer[] = [];
    for (let i = 0; i < n; i++) {
      answers.push(await upload({ base: proc!.base, token, body: fakeWebm(1024), headers: { 'x-forwarded-for': `203.0.113.${i % 250}` } }));
    }
    return answers;
  };

  it('should ignore X-Forwarded-For by default, so rotating it does not lift the per-address limit', async () => {
    backend = await createBackend('sqlite');
    const link = await linkOn(backend);
    proc = await startServerProcess({ ...backend.env, UPLOADS_PER_ADDRESS: '60' });
    const answers = await rotating(link.token, 100);
    expect(count(answers, 201)).toBe(60);
    expect(count(answers, 429, 'address_rate_limited')).toBe(40);
    expect(await link.storedNotes()).toBe(60);
  });

  it('should take the client from X-Forwarded-For when the proxy is named in TRUST_PROXY', async () => {
    backend = await createBackend('sqlite');
    const link = await linkOn(backend);
    proc = await startServerProcess({ ...backend.env, UPLOADS_PER_ADDRESS: '60', TRUST_PROXY: '127.0.0.1' });
    const answers = await rotating(link.token, 100);
    expect(count(answers, 201)).toBe(100);
  });

  it('should not take X-Forwarded-For from a peer that is not the named proxy', async () => {
    backend = await createBackend('sqlite');
    const link = await linkOn(backend);
    proc = await startServerProcess({ ...backend.env, UPLOADS_PER_ADDRESS: '5', TRUST_PROXY: '127.0.0.1' });
    const answers: RawAnswer[] = [];
    for (let i = 0; i < 8; i++) {
      answers.push(
        await upload({
          base: proc.base,
          token: link.token,
          body: fakeWebm(1024),
          localAddress: '127.0.0.9',
          headers: { 'x-forwarded-for': `198.51.100.${i}` },
        }),
      );
    }
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201, 429, 429, 429]);
  });
});
