/**
 * The length rule for notes. The recorder stops at 60 s; a note longer than MAX_NOTE_SECONDS
 * (75 s by default: room for a browser overshooting and codec padding, never a real note) is
 * refused, not cut: cutting would hand the runner part of something nobody meant to send.
 * - Before conversion, the converter reads packet timestamps (no decoding, never more than a few
 *   seconds past the limit) and marks a longer note failed with the reason; the runner's app
 *   shows it as failed, and the sender's status route answers 'failed'. Two hours of Opus DTX
 *   silence (2.7 MB) is judged in well under a second.
 * - The conversion itself is cut at the limit whatever the timestamps say (`-t`), so even a file
 *   that misleads the probe costs at most that many seconds of audio to convert.
 * - Not at upload: an ffprobe per upload made the ingest benchmark several times slower, and the
 *   recorder never sends a longer note, so only a hand-made upload meets the rule, after its 201.
 */
import type { Readable } from 'node:stream';
import { probeAudioSeconds } from './ffmpeg.js';
import type { AudioContainer } from './sniff.js';

export class NoteTooLongError extends Error {
  constructor(readonly maxSeconds: number) {
    super(`The recording is longer than ${maxSeconds} s, the most a note may last.`);
    this.name = 'NoteTooLongError';
  }
}

/**
 * Seconds of audio in the note (reading a few seconds past the limit, never the whole of a long
 * file); throws NoteTooLongError past maxSeconds, or MediaToolError when ffprobe cannot read it.
 */
export async function checkNoteLength(input: Readable, container: AudioContainer, maxSeconds: number, timeoutMs: number): Promise<number> {
  const seconds = await probeAudioSeconds(input, container, maxSeconds + 5, timeoutMs);
  if (seconds > maxSeconds) throw new NoteTooLongError(maxSeconds);
  return seconds;
}
