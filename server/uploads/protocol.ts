/**
 * The wire format of resumable uploads (draft-ietf-httpbis-resumable-upload, interop version 8):
 * its header fields, the upload resource's URL, and the problem types it defines.
 */
import { MAX_NOTE_BYTES } from '../../src/shared/api.js';
import { ApiProblem } from '../http/problem.js';

export const INTEROP_VERSION = 8;
export const PARTIAL_UPLOAD_TYPE = 'application/partial-upload';

type Header = string | string[] | undefined;
const one = (h: Header) => (Array.isArray(h) ? h[0] : h)?.trim();

/** A Structured Fields Boolean (`?1` / `?0`); undefined when absent or not a boolean. */
export function parseBoolean(h: Header): boolean | undefined {
  const v = one(h);
  return v === '?1' ? true : v === '?0' ? false : undefined;
}

/** A Structured Fields non-negative Integer (at most 15 digits); undefined when absent or malformed. */
export function parseOffset(h: Header): number | undefined {
  const v = one(h);
  return v !== undefined && /^\d{1,15}$/.test(v) ? Number(v) : undefined;
}

/**
 * The upload resource of a note. The client names it by the note id it made, so a page that
 * cannot read 104 (XHR and fetch drop interim responses) still knows where to resume.
 */
export const uploadPath = (token: string, noteId: string) => `/api/r/${token}/uploads/${noteId}`;

export const uploadLimit = (expiresAt: number, now: number) =>
  `max-size=${MAX_NOTE_BYTES}, max-append-size=${MAX_NOTE_BYTES}, max-age=${Math.max(0, Math.floor((expiresAt - now) / 1000))}`;

const PROBLEM_BASE = 'https://iana.org/assignments/http-problem-types#';

/** A problem the draft defines: an ApiProblem that also carries its type URI and extension members. */
export class UploadProblem extends ApiProblem {
  constructor(
    statusCode: number,
    readonly type: string,
    readonly title: string,
    message: string,
    readonly members: Record<string, number> = {},
    headers: Record<string, string> = {},
  ) {
    super(statusCode, type, message, headers);
    this.name = 'UploadProblem';
  }

  /** RFC 9457 problem details, plus our { error, message } so the recorder reads it like any API error. */
  body() {
    return { type: PROBLEM_BASE + this.type, title: this.title, ...this.members, error: this.code, message: this.message };
  }
}

export const mismatchingOffset = (expected: number, provided: number) =>
  new UploadProblem(409, 'mismatching-upload-offset', 'offset from request does not match offset of resource',
    'The server has a different part of this note than expected. It will be sent again from where the server stopped.',
    { 'expected-offset': expected, 'provided-offset': provided }, { 'upload-offset': String(expected) });

export const completedUpload = () =>
  new UploadProblem(400, 'completed-upload', 'upload is already completed', 'This note has already arrived in full.');

export const inconsistentLength = () =>
  new UploadProblem(400, 'inconsistent-upload-length', 'inconsistent length values for upload',
    'The note changed length between attempts. Please record it again.');

export const uploadNotFound = () =>
  new ApiProblem(404, 'upload_not_found', 'The server holds no unfinished upload of this note. It will be sent whole.');

/** Another request is still appending (perhaps on another server): the client asks again shortly. */
export const uploadBusy = (retryAfterSeconds: number) =>
  new ApiProblem(503, 'upload_busy', 'The server is still saving an earlier attempt of this note. It will be sent again in a moment.', {
    'retry-after': String(retryAfterSeconds),
  });
