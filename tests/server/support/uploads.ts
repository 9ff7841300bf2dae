/** Helpers to build note uploads the way the recorder sends them. */
import { createHash, randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { contentDigestHeader } from '../../../contract/contentDigest.js';
import { linkIdOf, newToken } from '../../../server/links.js';
import type { Repository } from '../../../server/db/repository.js';

export const digestOf = (body: Buffer) => contentDigestHeader(createHash('sha256').update(body).digest('hex'));
export const sha256Hex = (body: Buffer) => createHash('sha256').update(body).digest('hex');

/** A link made straight in the repository, as the admin CLI would. */
export async function makeLink(repo: Repository, raceId = 'chicago-2025', runnerName = 'Alex'): Promise<string> {
  const token = newToken();
  await repo.links.create({ linkId: linkIdOf(token), runnerName, raceId, createdAt: new Date().toISOString() });
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
  /** The client's address as the socket would give it (inject's default is 127.0.0.1). */
  remoteAddress?: string;
}

export function putNote(app: FastifyInstance, n: PutNote) {
  const noteId = n.noteId ?? randomUUID();
  const headers: Record<string, string> = { 'content-type': n.contentType ?? 'audio/webm;codecs=opus' };
  if (n.digest !== null) headers['content-digest'] = n.digest ?? digestOf(n.body);
  const query = new URLSearchParams({ marker: n.marker ?? 'mi-13', from: n.from ?? 'Sam' });
  return app.inject({ method: 'PUT', url: `/api/r/${n.token}/notes/${noteId}?${query}`, headers, payload: n.body, remoteAddress: n.remoteAddress });
}

/** The EBML header Chrome's MediaRecorder writes (DocType "webm"), which the sniffer looks for. */
export const WEBM_HEADER = Buffer.from('1a45dfa39f4286810142f7810142f2810442f381084282847765626d4287810442858102', 'hex');

/** Bytes that pass the audio sniffer (a WebM header) but are not a decodable recording. */
export const fakeWebm = (size = 2048) => {
  const body = Buffer.alloc(size, 7);
  WEBM_HEADER.copy(body);
  return body;
};
