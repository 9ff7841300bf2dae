/**
 * /readyz warns before the disk is full: 503 with its reason once the data folder (a real small
 * file system here) has less free than READY_MIN_FREE_MB, ready again once space is freed.
 * It once stayed 200 on a full disk. /metrics gives the same figures, for the alerts
 * that come before (docs/prometheus/milenotes-rules.yml).
 */
import { statfs } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../server/config/index.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { mountSmallDisk, type SmallDisk } from '../support/small-disk.js';

const MIB = 1024 * 1024;

describe('/readyz and free disk space', () => {
  let disk: SmallDisk;
  let t: TestApp;

  beforeAll(async () => {
    disk = await mountSmallDisk(16);
    t = await startTestApp('sqlite', { DATA_DIR: disk.dir, READY_MIN_FREE_MB: '8', METRICS: 'on' });
  });
  afterAll(async () => {
    await t?.close();
    await disk?.remove();
  });

  const readyz = async () => {
    const res = await t.app.inject('/readyz');
    return { ...(res.json() as { reason?: string; checks: Record<string, string> }), code: res.statusCode };
  };

  it('should answer 503 with the folder and the space wanted while the data folder is low, and 200 again once it is freed', async () => {
    expect(await readyz()).toMatchObject({ code: 200, checks: { disk: 'ok' } });
    await disk.fill();
    // Answers are kept for a second: wait for the one that has seen the full disk.
    await expect.poll(async () => (await readyz()).code, { timeout: 5_000, interval: 200 }).toBe(503);
    const low = await readyz();
    expect(low.checks).toMatchObject({ disk: 'failed', database: 'ok' });
    expect(low.reason).toBe(`low disk space: 0 MiB free under ${disk.dir}, 8 MiB wanted (READY_MIN_FREE_MB)`);
    await disk.free();
    await expect.poll(async () => (await readyz()).code, { timeout: 5_000, interval: 200 }).toBe(200);
  });

  it('should give on /metrics the free space it counts under each folder, and the least it wants', async () => {
    const scrape = async () => (await t.app.inject('/metrics')).body;
    const sample = (text: string, series: string) =>
      Number(
        text
          .split('\n')
          .find((l) => l.startsWith(`${series} `))
          ?.slice(series.length + 1),
      );
    const free = async () => {
      const fs = await statfs(disk.dir);
      return fs.bavail * fs.bsize;
    };
    expect(sample(await scrape(), 'milenotes_ready_min_free_bytes')).toBe(8 * MIB);
    expect(sample(await scrape(), 'milenotes_free_space_bytes{folder="data"}')).toBe(await free());
    expect(sample(await scrape(), 'milenotes_free_space_bytes{folder="temp"}')).toBeGreaterThan(0);
    await disk.fill(4 * MIB);
    try {
      const low = sample(await scrape(), 'milenotes_free_space_bytes{folder="data"}');
      expect(low).toBe(await free());
      expect(low).toBeLessThan(8 * MIB);
    } finally {
      await disk.free();
    }
  });

  it('should by default want room for the uploads one address may hold open and the conversions in hand, and 0 turns it off', () => {
    // 64 open uploads x 3 MiB + 2 conversions x (original + M4A) x 3 MiB.
    expect(loadConfig({}).readyMinFreeBytes).toBe(204 * MIB);
    expect(loadConfig({ OPEN_UPLOADS_PER_ADDRESS: '10', CONVERT_CONCURRENCY: '1' }).readyMinFreeBytes).toBe(36 * MIB);
    expect(loadConfig({ READY_MIN_FREE_MB: '500' }).readyMinFreeBytes).toBe(500 * MIB);
    expect(loadConfig({ READY_MIN_FREE_MB: '0' }).readyMinFreeBytes).toBe(0);
    expect(() => loadConfig({ READY_MIN_FREE_MB: 'lots' })).toThrow(/READY_MIN_FREE_MB/);
  });
});
