import Fastify from 'fastify';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { raceImages } from '../../../server/routes/race-images.js';
import type { BlobStore } from '../../../server/storage/blob-store.js';

const KEY = 'race-images/lakefront-2099.0123456789abcdef.card.webp';
const races = { image: async (id: string) => (id === 'lakefront-2099' ? { key: KEY, type: 'image/webp' } : undefined) };

async function appWith(get: BlobStore['get']) {
  const app = Fastify({ logger: false });
  await app.register(raceImages, { races, blobs: { get } as BlobStore });
  return app;
}

describe("the races' pictures", () => {
  it('should read a picture from the store once and answer the next requests from memory', async () => {
    let reads = 0;
    const app = await appWith(async () => (reads++, Readable.from([Buffer.from('picture bytes')])));
    for (let i = 0; i < 3; i++) {
      const res = await app.inject({ url: `/${KEY}` });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('picture bytes');
      expect(res.headers.etag).toBe('"0123456789abcdef"');
    }
    expect(reads).toBe(1);
  });

  it('should answer 503 with Retry-After and no details when the store cannot be read', async () => {
    const app = await appWith(async () => {
      throw new Error('connect ECONNREFUSED 10.0.0.7:9000 (bucket milenotes-prod)');
    });
    const res = await app.inject({ url: `/${KEY}` });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('10');
    expect(res.body).toBe('The picture cannot be read right now.');
  });
});
