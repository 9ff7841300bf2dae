/**
 * A note sent whole in one PUT: checked (refused early if its link or address is already at its
 * limit), streamed into the blob store (capped, hashed, sniffed), then committed with its
 * conversion job in the one transaction that checks and counts its limits for good. Only then a 201.
 */
import type { Readable } from 'node:stream';
import type { NoteReceipt } from '../../contract/api.js';
import { MAX_NOTE_BYTES } from '../../contract/limits.js';
import type { Repository } from '../db/repository.js';
import { ApiProblem } from '../http/problem.js';
import { refusal } from '../http/refusals.js';
import type { UploadQuota } from './quota.js';
import type { BlobStore } from '../storage/blob-store.js';
import { storageFaultOf } from '../storage/faults.js';
import { newOriginalKey } from '../storage/keys.js';
import { storeAudio, type StoredAudio } from './audio.js';
import { checkRoom, validateNote, type NoteRequest } from './checks.js';
import { answerForExisting, commitNote, type CommitDeps } from './commit.js';

export interface IntakeDeps extends CommitDeps {
  repo: Pick<Repository, 'notes' | 'progress' | 'uploads'>;
  blobs: BlobStore;
  quota: UploadQuota;
}

export interface WholeNote extends NoteRequest {
  body: Readable | undefined;
  /** The client's address as the server trusts it (TRUST_PROXY), for the per-address rate. */
  address: string;
}

export async function receiveWhole(deps: IntakeDeps, upload: WholeNote): Promise<NoteReceipt> {
  const { blobs, log } = deps;
  const checked = validateNote(upload);
  // The look at the limits is read in the same turn as the retry check: each read waits for the
  // commit (and WAL sync) in progress, so asked one after the other they waited for two.
  const room = checkRoom(deps.quota, upload.address, upload.link, checked, upload.contentLength).then(
    () => undefined,
    (err: unknown) => ({ err }),
  );
  const existing = await deps.repo.notes.find(checked.noteId);
  if (existing) return answerForExisting(existing, checked.linkId, checked.sha256);
  const { body } = upload;
  if (!body || upload.contentLength === 0) throw refusal.not_audio(true);

  // After the retry check: a note already stored is answered as before even on a full link.
  const refused = await room;
  if (refused) throw refused.err;
  const key = newOriginalKey(checked.noteId, checked.sha256);
  let stored: StoredAudio;
  try {
    stored = await storeAudio(blobs, body, { key, maxBytes: MAX_NOTE_BYTES, contentType: checked.contentType, sniff: true, limit: 'note' });
  } catch (err) {
    // Cut off means the request itself failed before its end; a body that came whole (then
    // destroyed by autoDestroy) with a store that failed is our trouble, a 5xx the recorder retries.
    // A store that failed for a full disk or an unreachable S3 destroys the body before its end
    // too: that is the storage's fault (a 503 that says so), not a cut.
    const cut = body.errored || (body.destroyed && !body.readableEnded);
    if (!(err instanceof ApiProblem) && !storageFaultOf(err) && cut) throw refusal.upload_interrupted();
    throw err;
  }
  const discard = () => blobs.delete(key).catch((err: unknown) => log.warn({ err, key }, 'could not delete a discarded upload'));
  return commitNote(deps, {
    checked,
    stored: { key, ...stored },
    discard,
    logFields: { container: stored.container },
    limits: { address: upload.address, runnerName: upload.link.runnerName },
  });
}
