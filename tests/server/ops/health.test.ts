import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../server/db/index.js';
import { createReadiness } from '../../../server/ops/readiness.js';
import type { Repository } from '../../../server/db/repository.js';
import type { BlobStore } from '../../../server/storage/blob-store.js';
import { freePort } from '../../../kit/freePort.js';
import { startTestApp } from '../support/app.js';
import { BACKENDS } from '../support/backends.js';

describe.each(BACKENDS)('health probes on %s', (kind) => {
  it('should answer /healthz and /readyz with every check ok, and never rate-limit them', async () => {
    const t = await startTestApp(kind, { CONVERT_WORKER: 'on', RATE_LIMIT_PER_MINUTE: '3' });
    try {
      for (let i = 0; i < 10; i++) {
        expect((await t.app.inject('/healthz')).statusCode).toBe(200);
        const ready = await t.app.inject('/readyz');
        expect(ready.statusCode).toBe(200);
        expect(ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', blobs: 'ok', worker: 'ok', disk: 'ok' } });
      }
    } finally {
      await t.close();
    }
  });

  it('should answer /readyz 503 with a reason when the database is gone, while /healthz still answers', async () => {
    const t = await startTestApp(kind);
    try {
      await t.app.repo.close();
      const ready = await t.app.inject('/readyz');
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toMatchObject({ status: 'not_ready', reason: expect.stringContaining('database'), checks: { database: 'failed', worker: 'off' } });
      expect((await t.app.inject('/healthz')).statusCode).toBe(200);
    } finally {
      await t.app.close().catch(() => {});
      await t.backend.cleanup();
    }
  });

  it('should answer /readyz 503 when a migration is not recorded as applied', async () => {
    const t = await startTestApp(kind);
    const db = openDatabase(t.backend.config);
    try {
      await db.run('DELETE FROM schema_migrations WHERE version = 1');
      const ready = await t.app.inject('/readyz');
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toMatchObject({ reason: expect.stringContaining('migrations not applied'), checks: { database: 'failed' } });
    } finally {
      await db.close();
      await t.close();
    }
  });
});

describe('readiness', () => {
  it('should answer 503 when the S3 store cannot be reached', async () => {
    const port = await freePort();
    const t = await startTestApp('sqlite', {
      S3_BUCKET: 'notes',
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_ACCESS_KEY_ID: 'x',
      S3_SECRET_ACCESS_KEY: 'x',
      S3_FORCE_PATH_STYLE: 'true',
    });
    try {
      const ready = await t.app.inject('/readyz');
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toMatchObject({ reason: 'blob store unreachable', checks: { database: 'ok', blobs: 'failed' } });
    } finally {
      await t.close();
    }
  });

  const deps = (beat: { running: boolean; lastBeatAt: number; busyWith: string[] }, stopping = false) => ({
    repo: { ops: { migrationsApplied: async () => true } } as unknown as Repository,
    blobs: { exists: async () => false } as unknown as BlobStore,
    worker: { heartbeat: () => beat },
    idleBeatMs: 10_000,
    busyBeatMs: 60_000,
    stopping: () => stopping,
    space: { dirs: [], minFreeBytes: 0 },
    onFailure: () => {},
  });

  it('should call a worker whose loop ended or went quiet stalled, but not one busy converting', async () => {
    const now = Date.now();
    expect((await createReadiness(deps({ running: true, lastBeatAt: now, busyWith: [] }))()).ready).toBe(true);
    expect(await createReadiness(deps({ running: false, lastBeatAt: now, busyWith: [] }))()).toMatchObject({
      ready: false,
      reason: 'conversion worker stalled',
    });
    expect((await createReadiness(deps({ running: true, lastBeatAt: now - 20_000, busyWith: [] }))()).ready).toBe(false);
    expect((await createReadiness(deps({ running: true, lastBeatAt: now - 20_000, busyWith: ['n1'] }))()).ready).toBe(true);
  });

  it('should not be ready while the server is stopping', async () => {
    expect(await createReadiness(deps({ running: true, lastBeatAt: Date.now(), busyWith: [] }, true))()).toMatchObject({
      ready: false,
      reason: 'shutting down',
    });
  });
});
