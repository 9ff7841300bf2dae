/**
 * What a note must pass before its body is read, whichever way its bytes come (a whole PUT, or a
 * resumable upload's creation): digest, type, size, sender's name and marker; then the limits of
 * its link and its address.
 */
import { MAX_NOTE_BYTES } from '../../contract/limits.js';
import { markersFor } from '../../contract/markers.js';
import type { LinkView, NoteRow, Repository } from '../db/repository.js';
import { refusal } from '../http/refusals.js';
import { sha256FromContentDigest } from './digest.js';
import type { UploadQuota } from './quota.js';
import { cleanContentType, cleanSenderName } from './sanitize.js';

/** The media type of a Content-Type header: lower-case, without parameters; '' when absent. */
export const mediaTypeOf = (header: string | undefined): string => (header ?? '').split(';')[0]!.trim().toLowerCase();

/** A length a request declared (Content-Length, Upload-Length) past the note limit is refused before any byte is read. */
export function checkSize(bytes: number | undefined): void {
  if (bytes !== undefined && bytes > MAX_NOTE_BYTES) throw refusal.too_large();
}

/** A note as its request names it, before any check. */
export interface NoteRequest {
  /** The live link the note came through, checked by the recorder's routes. */
  link: LinkView;
  noteId: string;
  marker: string;
  from: string;
  contentType: string | undefined;
  contentLength: number | undefined;
  /** Content-Digest (or Repr-Digest) of the whole note. */
  digest: string | string[] | undefined;
  /** The phone it came from (its device cookie's hash), when the request carried the cookie. */
  deviceId?: string;
}

export interface CheckedNote {
  noteId: string;
  linkId: string;
  marker: string;
  sha256: string;
  /** The media type plus a known codec parameter, never the header verbatim. */
  contentType: string;
  /** The sender's name, NFC, without control or bidi characters. */
  from: string;
  /** The phone it came from, or null: whom to tell when it is heard (server/devices). */
  deviceId: string | null;
  /** The note already stored under this id, if any: the caller answers with answerForExisting. */
  existing: NoteRow | undefined;
}

/** What a note's request alone decides, before any database is asked: a refusal, or the note as it will be stored. */
export function validateNote(request: NoteRequest): Omit<CheckedNote, 'existing'> {
  const noteId = request.noteId.toLowerCase();
  const sha256 = sha256FromContentDigest(request.digest);
  if (!sha256) throw refusal.digest_required();
  const mediaType = mediaTypeOf(request.contentType);
  if (!/^audio\/[a-z0-9.+-]+$/.test(mediaType) || request.contentType!.length > 128) throw refusal.not_audio();
  checkSize(request.contentLength);
  const contentType = cleanContentType(mediaType, request.contentType!);
  const from = cleanSenderName(request.from);
  if (!from) throw refusal.invalid_from();

  const { link, marker } = request;
  if (!markersFor(link.race.units).some((m) => m.id === marker)) throw refusal.unknown_marker({ name: link.race.name, marker });
  return { noteId, linkId: link.linkId, marker, sha256, contentType, from, deviceId: request.deviceId ?? null };
}

export async function checkNote(repo: Pick<Repository, 'notes'>, request: NoteRequest): Promise<CheckedNote> {
  const checked = validateNote(request);
  return { ...checked, existing: await repo.notes.find(checked.noteId) };
}

/** The room a note asks for: as much as it declared, the per-note cap when it did not. */
const roomFor = (declared: number | undefined) => Math.min(declared ?? MAX_NOTE_BYTES, MAX_NOTE_BYTES);

/**
 * A resumable upload's creation: counts the note against its address and holds room for it on its
 * link (429 past either limit). Resolves to what frees the room if the upload then fails; a stored
 * note counts itself. `holdMs`: how long the room stays held if nobody frees it (an unfinished
 * upload holds it until it expires).
 */
export function holdRoom(
  quota: UploadQuota,
  address: string,
  link: LinkView,
  note: Pick<CheckedNote, 'linkId' | 'noteId'>,
  declared: number | undefined,
  holdMs?: number,
) {
  return quota.admit(address, { linkId: note.linkId, noteId: note.noteId, runnerName: link.runnerName }, roomFor(declared), holdMs);
}

/** A whole note, before its bytes are read: the 429 a limit already reached gives. It is counted as it is stored (./commit.ts). */
export function checkRoom(quota: UploadQuota, address: string, link: LinkView, note: Pick<CheckedNote, 'linkId' | 'noteId'>, declared: number | undefined) {
  return quota.precheck(address, { linkId: note.linkId, noteId: note.noteId, runnerName: link.runnerName }, roomFor(declared));
}
