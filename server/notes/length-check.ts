/** The upload half of the length rule (server/audio/length.ts): a note too long for a runner is refused while its sender is still there. */
import { checkNoteLength, NoteTooLongError } from '../audio/length.js';
import { MediaToolError } from '../audio/ffmpeg.js';
import type { AudioContainer } from '../audio/sniff.js';
import { ApiProblem } from '../http/problem.js';
import type { BlobStore } from '../storage/blob-store.js';

/** A probe reads timestamps only; a longer wait than this is a machine in trouble, and the converter checks again. */
const UPLOAD_PROBE_TIMEOUT_MS = 10_000;

const tooLong = (maxSeconds: number) =>
  new ApiProblem(422, 'too_long', `This recording is longer than ${maxSeconds} seconds, more than a note can hold. Please record a shorter note (up to a minute).`);

/**
 * Throws a 422 when the stored note is too long, after `discard` removed it. A note ffprobe cannot
 * read passes: the converter fails it with its own reason, as it always did.
 */
export async function refuseTooLongNote(blobs: BlobStore, key: string, container: AudioContainer, maxSeconds: number, discard: () => Promise<unknown>): Promise<void> {
  try {
    await checkNoteLength(() => blobs.get(key), container, maxSeconds, UPLOAD_PROBE_TIMEOUT_MS);
  } catch (err) {
    if (err instanceof MediaToolError) return;
    await discard();
    throw err instanceof NoteTooLongError ? tooLong(maxSeconds) : err;
  }
}
