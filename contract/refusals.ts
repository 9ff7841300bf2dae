/**
 * The codes of the server's refusals as the recorder reads them (the `error` of an answer), shared
 * by the server that sends them (server/http/refusals.ts writes each one's status and sentence)
 * and the page that reads them. No imports but the upload wire format, so any runtime may use it.
 */
import { UPLOAD_PROBLEM } from './uploadProtocol.js';

/**
 * Every code an answer to the recorder can carry: GET /api/r/:token, a note's PUT, its upload's
 * HEAD, PATCH and DELETE, and the note's status. Translations of the server's sentences are keyed
 * by these, so a test can ask that each has one.
 */
export const RECORDER_REFUSALS = [
  // The link, the path and the request itself.
  'link_not_found',
  'invalid_note_id',
  'note_not_found',
  'not_found',
  'bad_request',
  // A note the runner removed (issue 19), sent again.
  'note_removed',
  // What the sender chose or typed.
  'unknown_marker',
  'invalid_from',
  // The note's bytes.
  'digest_required',
  'not_audio',
  'too_large',
  'upload_interrupted',
  'digest_mismatch',
  'note_conflict',
  // Limits on a link, an address and this server.
  'rate_limited',
  'address_rate_limited',
  'link_full',
  'link_storage_full',
  'too_many_open_uploads',
  // The server.
  'shutting_down',
  'server_error',
  // Its storage: the database or blob store unreachable, or the disk full (503 + Retry-After).
  'storage_unavailable',
  'storage_full',
  // Resumable uploads: ours, then the draft's problem types (their `error` is the type's name).
  'upload_not_found',
  'upload_busy',
  'not_partial_upload',
  UPLOAD_PROBLEM.mismatchingOffset,
  UPLOAD_PROBLEM.completedUpload,
  UPLOAD_PROBLEM.inconsistentLength,
] as const;

export type RecorderRefusal = (typeof RECORDER_REFUSALS)[number];

/** 429 codes for a link that is full: waiting will not help; the sender must ask the runner for a new link. */
export const LINK_FULL_ERRORS: readonly string[] = ['link_full', 'link_storage_full'] satisfies readonly RecorderRefusal[];

/**
 * Every code a push route's answer can carry (the recorder's notifications, /api/r/:token/push):
 * server/push/refusals.ts writes each one's status and sentence, and the recorder words them itself
 * (src/recorder/push/pushWords.ts). Never a note's reason.
 */
export const PUSH_REFUSALS = [
  'push_off',
  // The phone: our cookie, and a place on the link (a link takes so many new phones an hour, and a full one keeps its friends).
  'device_unknown',
  'link_phones_busy',
  'link_phones_full',
  // The browser's subscription, and the limits on subscriptions.
  'push_endpoint_refused',
  'invalid_subscription',
  'push_link_full',
  'push_phone_full',
  // Alerts.
  'push_not_subscribed',
  'progress_not_shared',
  'marker_passed',
  'marker_too_near',
] as const;

export type PushRefusal = (typeof PUSH_REFUSALS)[number];
