/**
 * Serves the races' own pictures (`add-race --image`) at /race-images/<name>, from the blob store
 * every server shares. The name carries the picture's hash, so an address never changes content:
 * browsers keep it for a year, and this server keeps the few in use in memory rather than asking S3
 * on each visit. Only the picture the catalogue names for its race, and only one this server made
 * (server/races/race-image.ts: never the operator's own bytes), is served; anything else is the
 * site's 404.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { RaceStore } from '../db/repository.js';
import { MAX_RACE_IMAGE_BYTES } from '../races/race-image.js';
import { BlobTooLargeError, type BlobStore } from '../storage/blob-store.js';
import { MADE_RACE_IMAGE_NAME, RACE_IMAGES } from '../storage/keys.js';

/** Nine cards show at once; a few more covers a change of list. At most 16 x 512 KiB in memory. */
const KEPT_IMAGES = 16;

async function bytesOf(blobs: BlobStore, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of await blobs.get(key)) {
    length += (chunk as Buffer).length;
    if (length > MAX_RACE_IMAGE_BYTES) throw new BlobTooLargeError(MAX_RACE_IMAGE_BYTES);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export const raceImages: FastifyPluginAsync<{ races: Pick<RaceStore, 'image'>; blobs: BlobStore }> = async (app, { races, blobs }) => {
  const kept = new Map<string, Buffer>();

  app.get<{ Params: { name: string } }>('/race-images/:name', async (req, reply) => {
    const { name } = req.params;
    const made = MADE_RACE_IMAGE_NAME.exec(name);
    const raceId = made?.[1];
    const key = RACE_IMAGES + name;
    let body: Buffer | undefined;
    let type: string;
    try {
      const image = raceId === undefined ? undefined : await races.image(raceId);
      if (!image || image.key !== key) return reply.callNotFound();
      type = image.type;
      body = kept.get(key);
      if (!body) {
        body = await bytesOf(blobs, key);
        kept.set(key, body);
        if (kept.size > KEPT_IMAGES) kept.delete(kept.keys().next().value!);
      }
    } catch (err) {
      // The database or the store is away (or the file is not what was stored): say so, and nothing more.
      req.log.warn({ err, key }, 'race picture could not be read');
      return reply.code(503).header('retry-after', '10').type('text/plain').send('The picture cannot be read right now.');
    }
    return reply.header('cache-control', 'public, max-age=31536000, immutable').header('etag', `"${made![2]}"`).type(type).send(body);
  });
};
