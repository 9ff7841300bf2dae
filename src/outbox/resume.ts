/**
 * Sending one note with resumable uploads, in the wire format contract/uploadProtocol.ts owns.
 * The first try is the whole note in one PUT that offers resumption (Upload-Complete: ?1); after
 * a cut, HEAD asks the server how much it holds and PATCH sends the rest. The upload resource is
 * named by the note id, so neither XHR nor fetch needs the 104 they cannot read. A server that
 * does not resume (404/405/501 on HEAD) gets whole PUTs, as before.
 */
import type { OutboxNote } from './notes.js';
import { notePath, uploadPath } from '../../contract/paths.js';
import { INTEROP_VERSION, PARTIAL_UPLOAD_TYPE, UPLOAD_HEADER, sfBoolean } from '../../contract/uploadProtocol.js';
import { contentDigestHeader } from './digest.js';
import type { Transport, UploadRequest, UploadResponse } from './transport.js';

/** Cuts in a row that each got more of the note to the server are resumed at once, up to this many per attempt. */
const MAX_ROUNDS = 50;

/** What the outbox remembers between attempts, page or worker, across reloads. */
export interface UploadProgress {
  /** A creation or append was sent and may have left bytes on the server: ask before sending. */
  uploadStarted?: boolean;
  /** Bytes the server last said it holds. */
  uploadOffset?: number;
}

export interface SendHooks {
  /** Persists progress in the outbox before the next request, so another uploader resumes from it. */
  save(progress: UploadProgress): Promise<void>;
  /** Share of the note the server has (or is being sent), 0..1. */
  progress(fraction: number): void;
}

const noteQuery = (note: OutboxNote) => new URLSearchParams({ marker: note.marker, from: note.from });

/** The whole note, offering the server to keep what arrives if the connection drops. */
export function creationRequest(note: OutboxNote, body: ArrayBuffer): UploadRequest {
  return {
    url: `${notePath(note.token, note.id)}?${noteQuery(note)}`,
    headers: {
      'Content-Type': note.contentType,
      'Content-Digest': contentDigestHeader(note.sha256),
      [UPLOAD_HEADER.complete]: sfBoolean(true),
      [UPLOAD_HEADER.length]: String(body.byteLength),
      [UPLOAD_HEADER.interopVersion]: INTEROP_VERSION,
    },
    body,
  };
}

/** HEAD of a note's upload resource: how much of it the server holds (headers only). */
export const offsetRequest = (note: Pick<OutboxNote, 'token' | 'id'>): UploadRequest => ({
  method: 'HEAD',
  url: uploadPath(note.token, note.id),
  headers: { [UPLOAD_HEADER.interopVersion]: INTEROP_VERSION },
});

const appendRequest = (note: OutboxNote, audio: ArrayBuffer, offset: number): UploadRequest => ({
  method: 'PATCH',
  url: uploadPath(note.token, note.id),
  headers: {
    'Content-Type': PARTIAL_UPLOAD_TYPE,
    [UPLOAD_HEADER.offset]: String(offset),
    [UPLOAD_HEADER.complete]: sfBoolean(true),
    [UPLOAD_HEADER.interopVersion]: INTEROP_VERSION,
  },
  body: audio.slice(offset),
});

const NO_ANSWER: UploadResponse = { status: 0, body: '', retryAfter: null };

/** A dropped connection or a server in trouble: worth asking where the upload stands. */
const interrupted = (status: number) => status === 0 || status >= 500;

async function ask(transport: Transport, request: UploadRequest, onProgress?: (fraction: number) => void): Promise<UploadResponse> {
  try {
    return await transport(request, onProgress);
  } catch {
    return NO_ANSWER;
  }
}

/** The offset from a HEAD, or undefined when the server keeps no upload of this note. */
function heldOffset(head: UploadResponse, bytes: number): { offset: number; complete: boolean } | undefined {
  if (head.status < 200 || head.status >= 300) return undefined;
  const offset = Number(head.header?.(UPLOAD_HEADER.offset));
  if (!Number.isInteger(offset) || offset < 0 || offset > bytes) return undefined;
  return { offset, complete: head.header?.(UPLOAD_HEADER.complete) === sfBoolean(true) };
}

/**
 * One attempt at a note. Resolves with the last answer (status 0 when none came): 2xx delivered,
 * 4xx for the person, otherwise try again later. Never rejects for network trouble.
 */
export async function sendNote(note: OutboxNote & UploadProgress, audio: ArrayBuffer, transport: Transport, hooks: SendHooks): Promise<UploadResponse> {
  const bytes = audio.byteLength;
  let started = note.uploadStarted ?? false;
  let known = note.uploadOffset ?? 0;
  let last = NO_ANSWER;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    if (started) {
      const head = await ask(transport, offsetRequest(note));
      if (interrupted(head.status) || head.status === 429) return round === 0 ? head : last;
      const held = heldOffset(head, bytes);
      if (held?.complete) return { status: 200, body: '', retryAfter: null };
      // After a cut in this attempt, go on only while each connection got more across.
      if (round > 0 && (!held || held.offset <= known)) return last;
      if (held) {
        known = held.offset;
        await hooks.save({ uploadStarted: true, uploadOffset: known });
        hooks.progress(known / bytes);
        last = await ask(transport, appendRequest(note, audio, known), (f) => hooks.progress((known + f * (bytes - known)) / bytes));
        if (!interrupted(last.status) && last.status !== 409) return last;
        // 409: our offset was stale (another uploader moved it): the next round asks again.
        if (last.status === 409) known = -1;
        continue;
      }
      // No upload resource: nothing was kept, or this server does not resume. Send it whole.
      started = false;
      await hooks.save({ uploadStarted: false, uploadOffset: 0 });
    }
    started = true;
    await hooks.save({ uploadStarted: true, uploadOffset: known });
    last = await ask(transport, creationRequest(note, audio), (f) => hooks.progress(f));
    if (!interrupted(last.status)) return last;
  }
  return last;
}
