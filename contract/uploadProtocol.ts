/**
 * Owns the wire format of note uploads (draft-ietf-httpbis-resumable-upload, interop version 8),
 * for the recorder and the server alike: the interop version, header names and the problem types
 * the draft defines (the note's and the upload's paths are ./paths.ts's). No imports, so the
 * recorder's chunk and the service worker can use it without pulling anything in.
 */

/** The draft's interop version, sent and checked as the Upload-Draft-Interop-Version header. */
export const INTEROP_VERSION = '8';

/** Header names, lower-case as Node gives them; HTTP header names are case-insensitive. */
export const UPLOAD_HEADER = {
  interopVersion: 'upload-draft-interop-version',
  complete: 'upload-complete',
  offset: 'upload-offset',
  length: 'upload-length',
  limit: 'upload-limit',
} as const;

/** The media type of an append (PATCH) body. */
export const PARTIAL_UPLOAD_TYPE = 'application/partial-upload';

/** A Structured Fields Boolean, as Upload-Complete carries it. */
export const sfBoolean = (value: boolean) => (value ? '?1' : '?0');

/** Problem types the draft registers (RFC 9457 `type` is this base plus the name). */
export const UPLOAD_PROBLEM_BASE = 'https://iana.org/assignments/http-problem-types#';
export const UPLOAD_PROBLEM = {
  mismatchingOffset: 'mismatching-upload-offset',
  completedUpload: 'completed-upload',
  inconsistentLength: 'inconsistent-upload-length',
} as const;
