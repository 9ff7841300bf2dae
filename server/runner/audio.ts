/**
 * Sends a converted note (M4A) as a resumable download: a strong ETag (the file's SHA-256), 304
 * to If-None-Match, single byte ranges (iOS's player and Safari ask for them and refuse media
 * served without) read from the store as ranges, and If-Range, so a download cut at 60 % asks for
 * the rest and gets it only if the file is still the one it has the start of. A note whose file
 * is gone from the store (deleted under it) answers 404 audio_gone, and the request carries a mark
 * the metrics count (server/plugins/metrics.ts). `onSentToEnd` hears of a GET whose answer reached
 * the file's last byte (the whole file, or the range that finishes a resumed download) and was sent
 * to the end: a download cut short never finishes its response.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ConvertedAudio } from '../db/job-store.js';
import { noneMatch } from '../http/conditional.js';
import { runnerRefusal } from '../http/refusals.js';
import { isBlobMissing, type BlobStore, type ByteRange } from '../storage/blob-store.js';

const gone = new WeakSet<FastifyRequest>();

/** Whether `req` was answered audio_gone: its note's file is not in the store. */
export const audioGoneMarkOf = (req: FastifyRequest): boolean => gone.has(req);

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

/** Size and SHA-256 of a file converted before migration 9 kept them: read once per request (notes are small). */
async function digestOf(blobs: BlobStore, key: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of await blobs.get(key)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), bytes };
}

export async function sendAudio(req: FastifyRequest, reply: FastifyReply, blobs: BlobStore, audio: ConvertedAudio, onSentToEnd?: () => void) {
  try {
    return await sendStored(req, reply, blobs, audio, onSentToEnd);
  } catch (err) {
    if (!isBlobMissing(err)) throw err;
    throw goneAnswer(req, reply, audio.key);
  }
}

/** audio_gone for `req`, marked for the metrics and logged for the operator: a file the database names has left the store. */
function goneAnswer(req: FastifyRequest, reply: FastifyReply, key: string) {
  gone.add(req);
  req.log.warn({ key }, "a converted note's audio is not in the store");
  reply.removeHeader('etag').removeHeader('accept-ranges').removeHeader('content-type');
  return runnerRefusal.audio_gone();
}

async function sendStored(req: FastifyRequest, reply: FastifyReply, blobs: BlobStore, audio: ConvertedAudio, onSentToEnd?: () => void) {
  const { sha256, bytes } = audio.sha256 !== null && audio.bytes !== null ? { sha256: audio.sha256, bytes: audio.bytes } : await digestOf(blobs, audio.key);
  const etag = `"${sha256}"`;
  reply.header('content-type', 'audio/mp4').header('accept-ranges', 'bytes').header('cache-control', 'private, no-store').header('etag', etag);
  if (noneMatch(req.headers['if-none-match'], etag)) return reply.code(304).send();
  // If-Range needs a strong match (RFC 9110, 13.1.5): any other validator, a date included, gets the whole file.
  const ifRange = req.headers['if-range'];
  const range = parseRange(ifRange === undefined || String(ifRange).trim() === etag ? req.headers.range : undefined, bytes);
  if (range === 'unsatisfiable') return reply.code(416).header('content-range', `bytes */${bytes}`).send();
  // HEAD (a player asking the size first) reads nothing from the store; an empty stream keeps
  // the Content-Length set above (fastify's HEAD handling drains a stream, and writes 0 for no body).
  const body = async (part?: ByteRange) => {
    if (req.method !== 'HEAD') return blobs.get(audio.key, part);
    // Asked, not read: a HEAD for a file that is gone says so too.
    if (!(await blobs.exists(audio.key))) throw goneAnswer(req, reply, audio.key);
    return Readable.from([]);
  };
  // 'finish' comes only once the last byte is handed to the connection; a download cut short closes
  // without it. Listened for once the body is in hand, so a file gone from the store is never counted.
  const toEnd = <T>(end: number, stream: T): T => {
    if (onSentToEnd && req.method === 'GET' && end === bytes - 1) reply.raw.once('finish', onSentToEnd);
    return stream;
  };
  if (!range)
    return reply
      .code(200)
      .header('content-length', bytes)
      .send(toEnd(bytes - 1, await body()));
  const [start, end] = range;
  return reply
    .code(206)
    .header('content-range', `bytes ${start}-${end}/${bytes}`)
    .header('content-length', end - start + 1)
    .send(toEnd(end, await body({ start, end })));
}
