import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdLease } from '../../../server/background/lease.js';
import { createLoop } from '../../../server/background/loop.js';
import { createBackground } from '../../../server/background/services.js';
import { openRepository } from '../../../server/db/index.js';
import type { Repository } from '../../../server/db/repository.js';
import { linkIdOf } from '../../../server/links.js';
import { queueNote } from '../../../server/races/note-deadlines.js';
import { BACKENDS, createBackend, type TestBackend } from '../support/backends.js';
import { makeLink } from '../support/uploads.js';

const log = Fastify({ logger: { level: 'silent' } }).log;

/** Resolves when `settle` is called: a round that runs until the test lets it end. */
function gate(): { wait: Promise<void>; settle(): void } {
  let settle!: () => void;
  const wait = new Promise<void>((resolve) => (settle = resolve));
  return { wait, settle };
}

describe('the background loop', () => {
  it('should wait for the round in flight before its stop resolves', async () => {
    const round = gate();
    let rounds = 0;
    const loop = createLoop({
      name: 'test',
      pollMs: 60_000,
      log,
      round: async () => {
        rounds++;
        await round.wait;
        return 'idle';
      },
    });
    loop.start();
    await expect.poll(() => rounds).toBe(1);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    // Give the stop every chance to resolve early: it must not while the round runs.
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    round.settle();
    await stopping;
    expect(loop.heartbeat().running).toBe(false);
    expect(rounds).toBe(1);
  });

  it('should look again at once when nudged during a round, and sleep its poll otherwise', async () => {
    let rounds = 0;
    const first = gate();
    const loop = createLoop({
      name: 'test',
      pollMs: 60_000,
      log,
      round: async () => {
        rounds++;
        if (rounds === 1) await first.wait;
        return 'idle';
      },
    });
    loop.start();
    await expect.poll(() => rounds).toBe(1);
    loop.nudge();
    first.settle();
    await expect.poll(() => rounds).toBe(2);
    loop.nudge();
    await expect.poll(() => rounds).toBe(3);
    await loop.stop();
  });

  it('should start its pieces in the order added and stop them in reverse', async () => {
    const seen: string[] = [];
    const background = createBackground(log);
    for (const name of ['sweep', 'push', 'conversion']) {
      background.add(name, { start: () => void seen.push(`start ${name}`), stop: async () => void seen.push(`stop ${name}`) });
    }
    background.start();
    await background.stop();
    expect(seen).toEqual(['start sweep', 'start push', 'start conversion', 'stop conversion', 'stop push', 'stop sweep']);
  });
});

describe.each(BACKENDS)('a leased queue on %s', (kind) => {
  let backend: TestBackend;
  let repo: Repository;
  let token: string;

  beforeAll(async () => {
    backend = await createBackend(kind);
    repo = await openRepository(backend.config);
    token = await makeLink(repo);
  });
  afterAll(async () => {
    await repo.close();
    await backend.cleanup();
  });

  async function queued(): Promise<string> {
    const id = randomUUID();
    const note = {
      id,
      linkId: linkIdOf(token),
      marker: 'mi-13',
      from: 'Sam',
      contentType: 'audio/webm',
      bytes: 10,
      sha256: 'a'.repeat(64),
      originalKey: `originals/${id}.test`,
      receivedAt: new Date().toISOString(),
    };
    await queueNote(repo, note, (q) => repo.notes.insert(q));
    return id;
  }

  it('should keep a job its holder renews past the lease, and hand it to another claim once the beats stop', async () => {
    const noteId = await queued();
    const leaseMs = 400;
    const job = await repo.jobs.claim(Date.now(), leaseMs);
    expect(job?.noteId).toBe(noteId);
    const lease = holdLease({ id: noteId, what: 'conversion', renew: (now, ms) => repo.jobs.renew(job!, now, ms), log }, { leaseMs, heartbeatMs: 100 });
    // Three leases' time: without its beats the claim would have run out twice over.
    const heldUntil = Date.now() + 3 * leaseMs;
    while (Date.now() < heldUntil) {
      expect(await repo.jobs.claim(Date.now(), leaseMs)).toBeUndefined();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(lease.signal.aborted).toBe(false);
    lease.release();
    await expect.poll(async () => (await repo.jobs.claim(Date.now(), 60_000))?.noteId, { timeout: 5_000 }).toBe(noteId);
    // The first holder's claim is no longer its own: a confirm before writing says so.
    await expect(lease.confirm()).rejects.toThrow(/lease on note .* was lost/);
  });

  it('should hand a job back only while the claim is the caller’s, with the attempt uncounted', async () => {
    const noteId = await queued();
    const first = (await repo.jobs.claim(Date.now(), 1))!;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = (await repo.jobs.claim(Date.now(), 60_000))!;
    expect([first.noteId, second.noteId, second.attempts]).toEqual([noteId, noteId, 2]);
    await repo.jobs.handBack(first);
    expect(await repo.jobs.claim(Date.now(), 60_000)).toBeUndefined();
    await repo.jobs.handBack(second);
    expect(await repo.jobs.claim(Date.now(), 60_000)).toMatchObject({ noteId, attempts: 2 });
  });
});
