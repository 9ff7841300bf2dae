/**
 * Receiving one note: check the request, stream the body into the blob store (capped, hashed,
 * sniffed), verify the digest, then commit the row and its conversion job. Only then is it a 201.
 */
import { finished, type Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { NoteReceipt } from '../../src/shared/api.js';
import { MAX_FROM_LENGTH, MAX_NOTE_BYTES } from '../../src/shared/limits.js';
import { markersFor } from '../../src/shared/markers.js';
import { AudioSniffer, NotAudioError } from '../audio/sniff.js';
import type { LinkView, NoteRow, Repository } from '../db/repository.js';
import { ApiProblem } from '../http/problem.js';
import { BlobTooLargeError, type BlobStore } from '../storage/blob-store.js';
import { newOriginalKey } from '../storage/keys.js';
import { sha256FromContentDigest } from './digest.js';
import type { UploadQuota } from './quota.js';
import { cleanContentType, cleanSenderName } from './sanitize.js';

export interface NoteUpload {
  /** The live link the note came through, checked by the recorder's routes. */
  link: LinkView;
  noteId: string;
  marker: string;
  from: string;
  contentType: string | undefined;
  contentLength: number | undefined;
  contentDigest: string | string[] | undefined;
  body: Readable | undefined;
  /** The client's address as the server trusts it (TRUST_PROXY), for the per-address rate. */
  address: string;
}

export interface ReceiveDeps {
  repo: Repository;
  blobs: BlobStore;
  quota: UploadQuota;
  log: FastifyBaseLogger;
  /** Called after a new note is committed, to wake the conversion worker. */
  onAccepted: () => void;
}

export const receiptOf = (n: NoteRow): NoteReceipt => ({
  id: n.id,
  marker: n.marker,
  from: n.from,
  contentType: n.contentType,
  bytes: n.bytes,
  sha256: n.sha256,
  receivedAt: n.receivedAt,
});

const tooLarge = () =>
  new ApiProblem(413, 'too_large', `This recording is too big to send (the limit is ${MAX_NOTE_BYTES / 1024 / 1024} MB). Please record a shorter note.`);
const notAudio = (empty = false) =>
  new ApiProblem(415, 'not_audio', empty ? 'The note arrived empty. Please record it again.' : "This file isn't a voice recording we can play. Please record the note again.");
export const noteConflict = () =>
  new ApiProblem(409, 'note_conflict', 'A different recording was already sent with this note id. Nothing was changed.');

/** The same id with the same bytes is a retry: answer as the first time. Anything else is a conflict. */
export function answerForExisting(existing: NoteRow, linkId: string, sha256: string): NoteReceipt {
  if (existing.linkId !== linkId || existing.sha256 !== sha256) throw noteConflict();
  return receiptOf(existing);
}

export interface CheckedNote {
  noteId: string;
  linkId: string;
  sha256: string;
  /** The media type plus a known codec parameter, never the header verbatim. */
  contentType: string;
  /** The sender's name, NFC, without control or bidi characters. */
  from: string;
  /** The note already stored under this id, if any: the caller answers with answerForExisting. */
  existing: NoteRow | undefined;
}

/** Everything a note upload (whole or resumable) must pass before its body is read: digest, type, size, name, marker. */
export async function checkNoteRequest(repo: Repository, upload: Omit<NoteUpload, 'body' | 'address'>): Promise<CheckedNote> {
  const noteId = upload.noteId.toLowerCase();
  const claimedSha256 = sha256FromContentDigest(upload.contentDigest);
  if (!claimedSha256) {
    throw new ApiProblem(400, 'digest_required', 'The upload needs a Content-Digest header with the SHA-256 of the audio (sha-256=:<base64>:).');
  }
  const mediaType = (upload.contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (!/^audio\/[a-z0-9.+-]+$/.test(mediaType) || upload.contentType!.length > 128) throw notAudio();
  if (upload.contentLength !== undefined && upload.contentLength > MAX_NOTE_BYTES) throw tooLarge();
  const contentType = cleanContentType(mediaType, upload.contentType!);
  const from = cleanSenderName(upload.from);
  if (!from) throw new ApiProblem(400, 'invalid_from', `Please enter your name (1 to ${MAX_FROM_LENGTH} characters) so the runner knows who the note is from.`);

  const { link } = upload;
  const { linkId } = link;
  if (!markersFor(link.race.units).some((m) => m.id === upload.marker)) {
    throw new ApiProblem(400, 'unknown_marker', `${link.race.name} has no marker '${upload.marker}'. Please pick a marker from the list.`);
  }
  return { noteId, linkId, sha256: claimedSha256, contentType, from, existing: await repo.notes.find(noteId) };
}

export async function receiveNote(deps: ReceiveDeps, upload: NoteUpload): Promise<NoteReceipt> {
  const { log } = deps;
  const { noteId, linkId, sha256: claimedSha256, contentType, from, existing } = await checkNoteRequest(deps.repo, upload);
  if (existing) return answerForExisting(existing, linkId, claimedSha256);
  if (!upload.body || upload.contentLength === 0) throw notAudio(true);

  // After the retry check: a note already stored is answered as before even on a full link.
  const releaseRoom = await deps.quota.admit(
    upload.address,
    { linkId, noteId, runnerName: upload.link.runnerName },
    Math.min(upload.contentLength ?? MAX_NOTE_BYTES, MAX_NOTE_BYTES),
  );
  try {
    return await storeNote(deps, upload, { noteId, linkId, claimedSha256, contentType, from });
  } catch (err) {
    // A stored note counts itself from its row on; only a failed upload must give its room back.
    await releaseRoom().catch((releaseErr: unknown) => log.warn({ err: releaseErr, noteId }, 'could not release an upload reservation'));
    throw err;
  }
}

interface CheckedUpload {
  noteId: string;
  linkId: string;
  claimedSha256: string;
  contentType: string;
  from: string;
}

async function storeNote(deps: ReceiveDeps, upload: NoteUpload, checked: CheckedUpload): Promise<NoteReceipt> {
  const { repo, blobs, log } = deps;
  const { noteId, linkId, claimedSha256, contentType, from } = checked;
  const body = upload.body!;

  const key = newOriginalKey(noteId, claimedSha256);
  const sniffer = new AudioSniffer();
  // finished() also reports a connection that closed mid-body (idle timeout, client gone), which
  // emits no 'error' on the request: without it the store would wait for the rest for ever.
  finished(body, (err) => {
    if (err) sniffer.destroy(err);
  });
  // The sniffer may fail before the store attaches to it; the store still sees it errored.
  sniffer.on('error', () => {});
  body.pipe(sniffer);
  let stored;
  try {
    stored = await blobs.put(key, sniffer, { maxBytes: MAX_NOTE_BYTES, contentType });
  } catch (thrown) {
    const err = sniffer.errored ?? thrown;
    if (err instanceof BlobTooLargeError) throw tooLarge();
    if (err instanceof NotAudioError) throw notAudio(err.empty);
    // Cut off means the request itself failed before its end; a body that came whole (then
    // destroyed by autoDestroy) with a store that failed is our trouble, a 5xx the recorder retries.
    if (body.errored || (body.destroyed && !body.readableEnded)) {
      throw new ApiProblem(400, 'upload_interrupted', 'The upload was cut off before it finished. It will be sent again.');
    }
    throw err;
  }

  const discard = () => blobs.delete(key).catch((err: unknown) => log.warn({ err, key }, 'could not delete a discarded upload'));
  if (stored.sha256 !== claimedSha256) {
    await discard();
    throw new ApiProblem(400, 'digest_mismatch', 'The recording changed on the way (its checksum does not match). It will be sent again.');
  }

  const note = {
    id: noteId,
    linkId,
    marker: upload.marker,
    from,
    contentType,
    bytes: stored.bytes,
    sha256: stored.sha256,
    originalKey: key,
    receivedAt: new Date().toISOString(),
  };
  let inserted: boolean;
  try {
    inserted = await repo.notes.insert(note);
  } catch (err) {
    await discard();
    throw err;
  }
  if (!inserted) {
    await discard();
    const winner = await repo.notes.find(noteId);
    if (!winner) throw new Error(`note ${noteId} was neither inserted nor found`);
    return answerForExisting(winner, linkId, claimedSha256);
  }
  log.info({ noteId, bytes: stored.bytes, container: sniffer.container }, 'note received');
  deps.onAccepted();
  return receiptOf({ ...note, status: 'received', convertedKey: null, durationMs: null, failureReason: null });
}
