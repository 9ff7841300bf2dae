/**
 * The length rule for notes. The recorder stops at 60 s; a note longer than MAX_NOTE_SECONDS
 * (75 s by default: room for a browser overshooting and codec padding, never a real note) is
 * refused, not cut: cutting would hand the runner part of something nobody meant to send.
 * - The converter's first pass decodes at most one second past the limit (`-t`) and counts the
 *   samples: a longer note is marked failed with the reason; the runner's app shows it as failed,
 *   and the sender's status route answers 'failed'. Two hours of Opus DTX silence (2.7 MB) costs
 *   76 s of decoding, well under a second, whatever its timestamps say.
 * - Not at upload: an ffprobe per upload made the ingest benchmark several times slower, and the
 *   recorder never sends a longer note, so only a hand-made upload meets the rule, after its 201.
 */
export class NoteTooLongError extends Error {
  constructor(readonly maxSeconds: number) {
    super(`The recording is longer than ${maxSeconds} s, the most a note may last.`);
    this.name = 'NoteTooLongError';
  }
}
