/** Helpers to build note uploads the way the recorder sends them. */
import { createHash, randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { contentDigestHeader } from '../../../src/shared/contentDigest.js';
import { linkIdOf, newToken } from '../../../server/links.js';
import type { Repository } from '../../../server/db/repository.js';

export const digestOf = (body: Buffer) => contentDigestHeader(createHash('sha256').update(body).digest('hex'));
export const sha256Hex = (body: Buffer) => createHash('sha256').update(body).digest('hex');

/** A link made straight in the repository, as the admin CLI would. */
export async function makeLink(repo: Repository, raceId = 'chicago-2025', runnerName = 'Alex'): Promise<string> {
  const token = newToken();
  await repo.createLink({ linkId: linkIdOf(token), runnerName, raceId, createdAt: new Date().toISOString() });
  return token;
}

export interface PutNote {
  token: string;
  body: Buffer;
  noteId?: string;
  marker?: string;
  from?: string;
  contentType?: string;
  digest?: string | null;
}

export function putNote(app: FastifyInstance, n: PutNote) {
  const noteId = n.noteId ?? randomUUID();
  const headers: Record<string, string> = { 'content-type': n.contentType ?? 'audio/webm;codecs=opus' };
  if (n.digest !== null) headers['content-digest'] = n.digest ?? digestOf(n.body);
  const query = new URLSearchParams({ marker: n.marker ?? 'mi-13', from: n.from ?? 'Sam' });
  return app.inject({ method: 'PUT', url: `/api/r/${n.token}/notes/${noteId}?${query}`, headers, payload: n.body });
}

/** Bytes that pass the audio sniffer (a WebM header) but are not a decodable recording. */
export const fakeWebm = (size = 2048) => {
  const body = Buffer.alloc(size, 7);
  Buffer.from([0x1a, 0x45, 0xdf, 0xa3]).copy(body);
  return body;
};
