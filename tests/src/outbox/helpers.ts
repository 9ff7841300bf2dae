import 'fake-indexeddb/auto';
import { deleteDB } from 'idb';
import { DB_NAME, closeOutboxDb, appendChunk, enqueueRecording, startRecording } from '../../../src/outbox/index.js';
import type { UploadRequest, UploadResponse } from '../../../src/outbox/index.js';
import type { OutboxNote } from '../../../src/outbox/notes.js';

export const TOKEN = 'tok-alex';

export async function freshDb(): Promise<void> {
  await closeOutboxDb();
  await deleteDB(DB_NAME);
}

export function bytes(...values: number[]): ArrayBuffer {
  return new Uint8Array(values).buffer;
}

let recordings = 0;

/** A recorded, sent note: a draft with the given chunks turned into a waiting note. */
export async function queuedNote(chunks: ArrayBuffer[] = [bytes(1, 2, 3)], marker = 'mi-20', now = 1_000): Promise<OutboxNote> {
  const id = `rec-${++recordings}`;
  await startRecording({ id, token: TOKEN, contentType: 'audio/webm;codecs=opus', startedAt: now, updatedAt: now });
  for (const [seq, chunk] of chunks.entries()) await appendChunk(id, seq, chunk, now);
  return enqueueRecording(id, { marker, markerLabel: marker, from: 'Sam', durationMs: 1000 }, now);
}

/**
 * A transport that answers uploads from a script of statuses (or 'network' to reject) and logs
 * them; it asks like a server that keeps no resumable uploads (HEAD: 404, not logged).
 */
export function scriptedTransport(script: (number | 'network')[], retryAfter: string | null = null) {
  const calls: UploadRequest[] = [];
  const transport = async (request: UploadRequest): Promise<UploadResponse> => {
    if (request.method === 'HEAD') return { status: 404, body: '{}', retryAfter: null };
    calls.push(request);
    const next = script.length > 1 ? script.shift()! : script[0]!;
    if (next === 'network') throw new TypeError('Failed to fetch');
    const body = next >= 400 ? JSON.stringify({ error: 'x', message: `Server says ${next}.` }) : '{}';
    return { status: next, body, retryAfter };
  };
  return { transport, calls };
}

/** A manual clock for backoff tests. */
export function clock(start = 10_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}
