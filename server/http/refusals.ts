/**
 * Owns every refusal a sender's recorder can receive: its status, code and English sentence,
 * written once, here. Keyed by the code; contract/refusals.ts lists the codes for the page, and
 * the `satisfies` below makes a listed code without its entry here, an entry for an unlisted code,
 * or an entry whose problem carries another code, a type error. Where a sentence takes values
 * (a limit, a race, a name), the entry is a function of them.
 */
import { MAX_FROM_LENGTH, MAX_NOTE_BYTES } from '../../contract/limits.js';
import type { RecorderRefusal, RefusalStatus } from '../../contract/refusals.js';
import { PARTIAL_UPLOAD_TYPE, UPLOAD_HEADER, UPLOAD_PROBLEM } from '../../contract/uploadProtocol.js';
import { ApiProblem, UploadProblem } from './problem.js';

/** Headers an append (PATCH) cannot do without; a schema failure on one of them gets one sentence. */
const APPEND_HEADERS = new Set<string>([UPLOAD_HEADER.offset, UPLOAD_HEADER.complete]);

const TOO_LARGE = {
  note: `This recording is too big to send (the limit is ${MAX_NOTE_BYTES / 1024 / 1024} MB). Please record a shorter note.`,
  part: 'This upload is longer than the note it belongs to.',
  request: 'This request is too big.',
} as const;

const SORRY = 'Something went wrong on our side.';
const KEPT = 'Your note is kept on your phone and will be sent again.';

/**
 * Retry-After of the storage faults. A database restarting or failing over is back in seconds;
 * a full disk waits for an operator (and /readyz sends new traffic elsewhere meanwhile), so its
 * retries are spaced out: a full note body sent every few seconds into a full disk helps nobody.
 */
export const STORAGE_RETRY_SECONDS = { unavailable: 10, full: 60 } as const;

export const refusal = {
  link_not_found: () => new ApiProblem(404, 'link_not_found', "This link doesn't work any more. Ask the runner for a new one."),
  /** The recorder makes note ids itself, so a malformed one is a broken request, not a missing note. */
  invalid_note_id: () => new ApiProblem(400, 'invalid_note_id', 'The note id must be a UUID made by the recorder.'),
  note_not_found: () => new ApiProblem(404, 'note_not_found', 'This note was not found.'),
  /** The runner removed the note (DELETE /api/notes/:id); its id never becomes a note again. */
  note_removed: () => new ApiProblem(410, 'note_removed', 'The runner removed this note, so it will not be sent again.'),
  /** `what`: the method and path nothing answers; without it, a path parameter that names nothing. */
  not_found: (what?: string) => new ApiProblem(404, 'not_found', what ? `There is nothing at ${what}.` : 'This was not found. The link may be incomplete.'),
  /** `field`: the field (or header) that failed its schema; without it, a request not understood at all. */
  bad_request: (field?: string, statusCode: RefusalStatus<'bad_request'> = 400) =>
    new ApiProblem(
      statusCode,
      'bad_request',
      field === undefined
        ? 'The request was not understood. Please reload the page and try again.'
        : APPEND_HEADERS.has(field)
          ? 'An append needs Upload-Offset and Upload-Complete headers.'
          : `The field '${field}' is missing or not valid.`,
    ),

  /** With the race, the marker it does not have; without, a marker id the schema refused. */
  unknown_marker: (race?: { name: string; marker: string }) =>
    new ApiProblem(
      400,
      'unknown_marker',
      race
        ? `${race.name} has no marker '${race.marker}'. Please pick a marker from the list.`
        : 'Please pick a mile marker from the list (for example mi-13 or finish).',
    ),
  invalid_from: () =>
    new ApiProblem(400, 'invalid_from', `Please enter your name (1 to ${MAX_FROM_LENGTH} characters) so the runner knows who the note is from.`),

  digest_required: () => new ApiProblem(400, 'digest_required', 'The upload needs a Content-Digest header with the SHA-256 of the audio (sha-256=:<base64>:).'),
  not_audio: (empty = false) =>
    new ApiProblem(
      415,
      'not_audio',
      empty ? 'The note arrived empty. Please record it again.' : "This file isn't a voice recording we can play. Please record the note again.",
    ),
  /** `what` passed its limit: the note, one append of a resumable upload, or any request body. */
  too_large: (what: keyof typeof TOO_LARGE = 'note') => new ApiProblem(413, 'too_large', TOO_LARGE[what]),
  upload_interrupted: () => new ApiProblem(400, 'upload_interrupted', 'The upload was cut off before it finished. It will be sent again.'),
  digest_mismatch: (headers: Record<string, string> = {}) =>
    new ApiProblem(400, 'digest_mismatch', 'The recording changed on the way (its checksum does not match). It will be sent again.', headers),
  note_conflict: () => new ApiProblem(409, 'note_conflict', 'A different recording was already sent with this note id. Nothing was changed.'),

  /** The per-minute request limit: a sender's, or a runner's sign-in attempts. */
  rate_limited: (retryAfterSeconds?: number, who: 'sender' | 'runner' = 'sender') =>
    new ApiProblem(
      429,
      'rate_limited',
      who === 'sender'
        ? 'Too many requests in a short time. Please wait a moment; your notes will be sent again.'
        : 'Too many sign-in attempts. Please wait a minute and try again.',
      retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) },
    ),
  address_rate_limited: (retryAfterSeconds: number) =>
    new ApiProblem(
      429,
      'address_rate_limited',
      'Many notes were sent from this network in a short time. Your note is saved on this phone and will be sent again shortly.',
      { 'retry-after': String(retryAfterSeconds) },
    ),
  link_full: (runnerName: string, retryAfterSeconds: number) =>
    new ApiProblem(429, 'link_full', `This link has reached its limit of notes. Ask ${runnerName} for a new link.`, {
      'retry-after': String(retryAfterSeconds),
    }),
  link_storage_full: (runnerName: string, retryAfterSeconds: number) =>
    new ApiProblem(429, 'link_storage_full', `This link has no room left for more recordings. Ask ${runnerName} for a new link.`, {
      'retry-after': String(retryAfterSeconds),
    }),
  too_many_open_uploads: () =>
    new ApiProblem(429, 'too_many_open_uploads', 'Several notes are already being sent from this network. This one will follow in a moment.', {
      'retry-after': '5',
      // The body was not read: do not leave it for the next request on this connection.
      connection: 'close',
    }),

  shutting_down: (retryAfterSeconds: number) =>
    new ApiProblem(503, 'shutting_down', 'This server is restarting. Your note is kept on your phone and will be sent again in a moment.', {
      'retry-after': String(retryAfterSeconds),
      connection: 'close',
    }),
  /**
   * Storage faults (server/storage/faults.ts): the database or the blob store cannot be reached,
   * or the disk is full. Not our bug and not the sender's: wait and send again. `noteKept` as for server_error.
   */
  storage_unavailable: (retryAfterSeconds = STORAGE_RETRY_SECONDS.unavailable, noteKept = true) =>
    new ApiProblem(503, 'storage_unavailable', `The server cannot reach its storage for a moment. ${noteKept ? KEPT : 'Please try again shortly.'}`, {
      'retry-after': String(retryAfterSeconds),
    }),
  storage_full: (retryAfterSeconds = STORAGE_RETRY_SECONDS.full, noteKept = true) =>
    new ApiProblem(
      503,
      'storage_full',
      noteKept
        ? `The server has no room to store notes right now. ${KEPT}`
        : 'The server has no room to store anything right now. Please try again in a few minutes.',
      { 'retry-after': String(retryAfterSeconds) },
    ),
  /** Ours, never details: `noteKept` where the sender's note waits on the phone (the recorder's routes). */
  server_error: (noteKept: boolean) =>
    new ApiProblem(500, 'server_error', noteKept ? `${SORRY} Your note is kept on your phone and will be sent again.` : `${SORRY} Please try again.`),

  upload_not_found: () => new ApiProblem(404, 'upload_not_found', 'The server holds no unfinished upload of this note. It will be sent whole.'),
  /** Another request is still appending (perhaps on another server): the client asks again shortly. */
  upload_busy: (retryAfterSeconds: number) =>
    new ApiProblem(503, 'upload_busy', 'The server is still saving an earlier attempt of this note. It will be sent again in a moment.', {
      'retry-after': String(retryAfterSeconds),
    }),
  not_partial_upload: () => new ApiProblem(415, 'not_partial_upload', `An append must have Content-Type: ${PARTIAL_UPLOAD_TYPE}.`),
  [UPLOAD_PROBLEM.mismatchingOffset]: (expected: number, provided: number) =>
    new UploadProblem(
      409,
      UPLOAD_PROBLEM.mismatchingOffset,
      'offset from request does not match offset of resource',
      'The server has a different part of this note than expected. It will be sent again from where the server stopped.',
      { 'expected-offset': expected, 'provided-offset': provided },
      { [UPLOAD_HEADER.offset]: String(expected) },
    ),
  [UPLOAD_PROBLEM.completedUpload]: () =>
    new UploadProblem(400, UPLOAD_PROBLEM.completedUpload, 'upload is already completed', 'This note has already arrived in full.'),
  [UPLOAD_PROBLEM.inconsistentLength]: () =>
    new UploadProblem(
      400,
      UPLOAD_PROBLEM.inconsistentLength,
      'inconsistent length values for upload',
      'The note changed length between attempts. Please record it again.',
    ),
} satisfies { [Code in RecorderRefusal]: (...args: never[]) => ApiProblem<Code> };

/** Whether `err` is the refusal `code`: for the few places that answer one refusal differently. */
export const isRefusal = (err: unknown, code: RecorderRefusal): err is ApiProblem => err instanceof ApiProblem && err.code === code;

/**
 * Refusals only the runner's app meets (its sync requests), so not in the recorder's list above
 * and without recorder translations: the app words them itself by code.
 */
export const runnerRefusal = {
  /** The app starts over with the full list (no `after`) and keeps the cursor that answer carries. */
  invalid_cursor: () =>
    new ApiProblem(400, 'invalid_cursor', 'This sync cursor is not one of this entry’s. Fetch the whole list again and use the cursor it carries.'),
  cursor_required: () => new ApiProblem(400, 'cursor_required', 'wait is only for a sync request: add after=<cursor> from an earlier answer.'),
  /** A converted note whose audio file is missing from the store (deleted under it): it cannot be played, now or later. */
  audio_gone: () => new ApiProblem(404, 'audio_gone', "This note's recording is no longer on the server, so it cannot be played."),
  /** This server holds as many sync requests as it may: ask again after the pause, perhaps reaching another server. */
  sync_busy: (retryAfterSeconds: number) =>
    new ApiProblem(503, 'sync_busy', 'This server is holding as many sync requests as it can. Please ask again in a moment.', {
      'retry-after': String(retryAfterSeconds),
    }),
} as const;

/**
 * Refusals of the race catalogue's routes, which only the runner's app meets (a recorder's notes
 * are taken for any race, a race that is over included): no recorder catalogue keys.
 */
// The defaults are for the contract (server/http/contract.ts), which reads status and code by calling with no values.
export const raceRefusal = {
  race_over: (race: { name: string; date: string } = { name: 'race', date: 'its date' }) =>
    new ApiProblem(400, 'race_over', `The ${race.name} (${race.date}) is over, so it can no longer be entered. Choose a race that has not finished yet.`),
  race_not_found: () => new ApiProblem(404, 'race_not_found', 'We don’t have that race. Pick one from the list of races.'),
  /** The one `no_course`, for the course itself and for positions that would be placed on it. */
  no_course: (race: { name: string } = { name: 'race' }) =>
    new ApiProblem(
      404,
      'no_course',
      `We don’t have the course of the ${race.name} yet: its markers are known by their distance only, and positions can’t be placed on it. Ask again closer to race day.`,
    ),
} satisfies Record<string, (...args: never[]) => ApiProblem>;

/**
 * Refusals only the runner's app meets (race-day progress): the recorder never calls these
 * routes, so they are not in RECORDER_REFUSALS and need no catalogue keys. Status, code and sentence here too.
 */
// Defaults again for the contract, which calls each with no values.
export const appRefusal = {
  race_not_live: (race = 'race', when: 'upcoming' | 'past' = 'upcoming') =>
    new ApiProblem(
      409,
      'race_not_live',
      when === 'upcoming'
        ? `The ${race} has not started yet. Positions are taken only while the race is on.`
        : `The ${race} is over. Positions are taken only while the race is on, for 8 hours from its start.`,
    ),
  progress_not_shared: () => new ApiProblem(409, 'progress_not_shared', 'Sharing your progress is off for this race. Turn it on before positions are sent.'),
} satisfies Record<string, (...args: never[]) => ApiProblem>;
