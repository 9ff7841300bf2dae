/**
 * Sends a converted note (M4A) with single byte-range support: iOS's player and Safari ask for
 * ranges and refuse media served without them. Notes are small (well under 3 MB), so the blob is
 * read whole rather than streamed.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { BlobStore } from '../storage/blob-store.js';

async function readAll(blobs: BlobStore, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await blobs.get(key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** [start, end] inclusive, 'unsatisfiable', or undefined for no (or an unsupported multi-) range. */
export function parseRange(header: string | undefined, size: number): [number, number] | 'unsatisfiable' | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? '');
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (match[1] === '') {
    start = Math.max(0, size - Number(match[2]));
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return [start, end];
}

export async function sendAudio(req: FastifyRequest, reply: FastifyReply, blobs: BlobStore, key: string) {
  const body = await readAll(blobs, key);
  reply.header('content-type', 'audio/mp4').header('accept-ranges', 'bytes').header('cache-control', 'private, no-store');
  const range = parseRange(req.headers.range, body.length);
  if (range === 'unsatisfiable') return reply.code(416).header('content-range', `bytes */${body.length}`).send();
  if (!range) return reply.code(200).send(body);
  const [start, end] = range;
  return reply.code(206).header('content-range', `bytes ${start}-${end}/${body.length}`).send(body.subarray(start, end + 1));
}
