/**
 * Every refusal the API gives: its code (the `error` of an answer), the statuses it comes with,
 * who meets it, and whether it says when to try again (Retry-After). The server can only make a
 * refusal listed here, with one of its statuses (server/http/problem.ts types its constructor by
 * this catalogue); the OpenAPI document, docs/app-contract.md and the page's translations are
 * checked against it. Sentences are the server's (server/http/refusals.ts and its neighbours) and
 * the page's (src/i18n, by code). No imports but the upload wire format, so any runtime may use it.
 */
import { UPLOAD_PROBLEM } from './uploadProtocol.js';

/**
 * Who meets a refusal: `recorder` the sender's note routes (each code a translated sentence on the
 * page), `page` the friend's other pages (keepsake, home screen), `push` the recorder's
 * notifications (worded by the page's push block), `app` the runner's iPhone app, `operator`
 * the operator's probes and admin (which answer without codes today: none is listed for it).
 */
export type Audience = 'recorder' | 'page' | 'push' | 'app' | 'operator';

interface RefusalEntry {
  /** The statuses this code is sent with (most have one). */
  readonly status: readonly number[];
  readonly audiences: readonly Audience[];
  /** The answer carries Retry-After: the client waits that long, then asks again. */
  readonly retryAfter: boolean;
}

const ALL = ['recorder', 'page', 'push', 'app'] as const;

export const REFUSALS = {
  // The link, the path and the request itself.
  link_not_found: { status: [404], audiences: ['recorder', 'push'], retryAfter: false },
  /** The recorder makes note ids itself, so a malformed one is a broken request, not a missing note. */
  invalid_note_id: { status: [400], audiences: ['recorder'], retryAfter: false },
  note_not_found: { status: [404], audiences: ['recorder', 'page', 'app'], retryAfter: false },
  not_found: { status: [404], audiences: ALL, retryAfter: false },
  /** A schema failure is 400; Fastify's own refusals of a request keep their status (a path too long, a body type it does not parse). */
  bad_request: { status: [400, 404, 414, 415], audiences: ALL, retryAfter: false },
  /** A note the runner removed, sent again (or played): its id never becomes a note again. */
  note_removed: { status: [410], audiences: ['recorder', 'app'], retryAfter: false },
  // What the sender chose or typed.
  unknown_marker: { status: [400], audiences: ['recorder', 'push', 'app'], retryAfter: false },
  invalid_from: { status: [400], audiences: ['recorder'], retryAfter: false },
  // The note's bytes.
  digest_required: { status: [400], audiences: ['recorder'], retryAfter: false },
  not_audio: { status: [415], audiences: ['recorder'], retryAfter: false },
  too_large: { status: [413], audiences: ALL, retryAfter: false },
  upload_interrupted: { status: [400], audiences: ['recorder'], retryAfter: false },
  digest_mismatch: { status: [400], audiences: ['recorder'], retryAfter: false },
  note_conflict: { status: [409], audiences: ['recorder'], retryAfter: false },
  // Limits on a link, an address and this server.
  rate_limited: { status: [429], audiences: ALL, retryAfter: true },
  address_rate_limited: { status: [429], audiences: ['recorder'], retryAfter: true },
  /** A full link: Retry-After is a day, but waiting will not help; the sender asks the runner for a new link. */
  link_full: { status: [429], audiences: ['recorder'], retryAfter: true },
  link_storage_full: { status: [429], audiences: ['recorder'], retryAfter: true },
  too_many_open_uploads: { status: [429], audiences: ['recorder'], retryAfter: true },
  // The server, and its storage: the database or blob store unreachable, or the disk full.
  shutting_down: { status: [503], audiences: ALL, retryAfter: true },
  server_error: { status: [500], audiences: ALL, retryAfter: false },
  storage_unavailable: { status: [503], audiences: ALL, retryAfter: true },
  storage_full: { status: [503], audiences: ALL, retryAfter: true },
  // Resumable uploads: ours, then the draft's problem types (their `error` is the type's name).
  upload_not_found: { status: [404], audiences: ['recorder'], retryAfter: false },
  upload_busy: { status: [503], audiences: ['recorder'], retryAfter: true },
  not_partial_upload: { status: [415], audiences: ['recorder'], retryAfter: false },
  [UPLOAD_PROBLEM.mismatchingOffset]: { status: [409], audiences: ['recorder'], retryAfter: false },
  [UPLOAD_PROBLEM.completedUpload]: { status: [400], audiences: ['recorder'], retryAfter: false },
  [UPLOAD_PROBLEM.inconsistentLength]: { status: [400], audiences: ['recorder'], retryAfter: false },

  // The recorder's notifications: never a note's reason.
  push_off: { status: [404], audiences: ['push'], retryAfter: false },
  /** The request carried no device cookie. */
  device_unknown: { status: [400], audiences: ['push'], retryAfter: false },
  /** The link took its hour's new phones: this one may come on later. */
  link_phones_busy: { status: [429], audiences: ['push'], retryAfter: true },
  /** Every phone on the link took part there: waiting does not help. */
  link_phones_full: { status: [429], audiences: ['push'], retryAfter: false },
  push_endpoint_refused: { status: [400], audiences: ['push'], retryAfter: false },
  invalid_subscription: { status: [400], audiences: ['push'], retryAfter: false },
  push_link_full: { status: [429], audiences: ['push'], retryAfter: false },
  push_phone_full: { status: [429], audiences: ['push'], retryAfter: false },
  push_not_subscribed: { status: [409], audiences: ['push'], retryAfter: false },
  /** Alerts need the runner's progress; the app's positions need sharing on. */
  progress_not_shared: { status: [409], audiences: ['push', 'app'], retryAfter: false },
  marker_passed: { status: [409], audiences: ['push'], retryAfter: false },
  marker_too_near: { status: [409], audiences: ['push'], retryAfter: false },

  // The friend's other pages.
  /** A share the runner removed, or a keepsake link copied incompletely; in the app, a share not on the account. */
  share_not_found: { status: [404], audiences: ['page', 'app'], retryAfter: false },
  /** The home screen's list: the link is not on this phone's list, or the request carried no device cookie. */
  device_link_not_found: { status: [404], audiences: ['page'], retryAfter: false },

  // The runner's app: its session.
  not_signed_in: { status: [401], audiences: ['app'], retryAfter: false },
  sign_in_refused: { status: [401], audiences: ['app'], retryAfter: false },
  session_expired: { status: [401], audiences: ['app'], retryAfter: false },
  apple_unavailable: { status: [503], audiences: ['app'], retryAfter: false },
  // Its races and entries.
  unknown_race: { status: [400], audiences: ['app'], retryAfter: false },
  invalid_display_name: { status: [400], audiences: ['app'], retryAfter: false },
  race_over: { status: [400], audiences: ['app'], retryAfter: false },
  race_not_found: { status: [404], audiences: ['app'], retryAfter: false },
  no_course: { status: [404], audiences: ['app'], retryAfter: false },
  race_not_live: { status: [409], audiences: ['app'], retryAfter: false },
  entry_not_found: { status: [404], audiences: ['app'], retryAfter: false },
  // Its notes and their sync.
  audio_link_expired: { status: [403], audiences: ['app'], retryAfter: false },
  audio_gone: { status: [404], audiences: ['app'], retryAfter: false },
  invalid_cursor: { status: [400], audiences: ['app'], retryAfter: false },
  cursor_required: { status: [400], audiences: ['app'], retryAfter: false },
  sync_busy: { status: [503], audiences: ['app'], retryAfter: true },
} as const satisfies Record<string, RefusalEntry>;

type Catalogue = typeof REFUSALS;
export type RefusalCode = keyof Catalogue;
/** The statuses `Code` may be sent with. */
export type RefusalStatus<Code extends RefusalCode> = Catalogue[Code]['status'][number];
/** The codes `Who` can meet. */
export type RefusalOf<Who extends Audience> = {
  [Code in RefusalCode]: Who extends Catalogue[Code]['audiences'][number] ? Code : never;
}[RefusalCode];

export const REFUSAL_CODES = Object.keys(REFUSALS) as RefusalCode[];

export const isRefusalCode = (code: string): code is RefusalCode => Object.hasOwn(REFUSALS, code);

/** Whether `status` is one `code` is sent with. */
export const isRefusalStatus = <Code extends RefusalCode>(code: Code, status: number): status is RefusalStatus<Code> =>
  (REFUSALS[code].status as readonly number[]).includes(status);

/** The codes `who` can meet, in the catalogue's order. */
export const refusalsOf = <Who extends Audience>(who: Who): RefusalOf<Who>[] =>
  REFUSAL_CODES.filter((code) => (REFUSALS[code].audiences as readonly Audience[]).includes(who)) as RefusalOf<Who>[];

/**
 * Every code an answer to the recorder's note routes can carry: GET /api/r/:token, a note's PUT,
 * its upload's HEAD, PATCH and DELETE, and the note's status. Translations of the server's
 * sentences are keyed by these (src/i18n, `refusal.<code>`), so a test can ask that each has one.
 */
export const RECORDER_REFUSALS = refusalsOf('recorder');
export type RecorderRefusal = RefusalOf<'recorder'>;

/**
 * The codes only a push route's answer carries (/api/r/:token/push), beside the recorder's it
 * shares (a link not found, a rate limit): never a note's reason; the recorder words them itself
 * (src/recorder/push/pushWords.ts).
 */
export type PushRefusal = Exclude<RefusalOf<'push'>, RecorderRefusal>;
export const PUSH_REFUSALS = refusalsOf('push').filter((code): code is PushRefusal => !(RECORDER_REFUSALS as string[]).includes(code));

/** 429 codes for a link that is full: waiting will not help; the sender must ask the runner for a new link. */
export const LINK_FULL_ERRORS: readonly string[] = ['link_full', 'link_storage_full'] satisfies readonly RecorderRefusal[];
