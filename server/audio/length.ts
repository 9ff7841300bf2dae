/**
 * The length rule for notes. The recorder stops at 60 s; a note longer than MAX_NOTE_SECONDS
 * (75 s by default: room for a browser overshooting and codec padding, never a real note) is
 * refused, not cut: cutting would hand the runner part of something nobody meant to send.
 * - At upload, after the bytes are stored: the sender gets a 422 with a sentence (the recorder
 *   shows it under 'Needs attention') and nothing is kept. If ffprobe cannot read the note at
 *   all, the upload is still accepted: the converter then fails it with the reason, as before.
 * - Before conversion, again (notes received before this rule, or whose probe could not run):
 *   the note is marked failed with the reason, which the runner's app shows as failed.
 * - The conversion itself is cut at the limit whatever the timestamps say (`-t`), so even a file
 *   that misleads the probe costs at most that many seconds of audio to convert.
 */
import type { Readable } from 'node:stream';
import { probeAudioSeconds } from './ffmpeg.js';
import type { AudioContainer } from './sniff.js';

/** ffprobe only reads packet timestamps, but it is still a process per note: a few at a time. */
const MAX_PROBES_AT_ONCE = 2;

export class NoteTooLongError extends Error {
  constructor(readonly maxSeconds: number) {
    super(`The recording is longer than ${maxSeconds} s, the most a note may last.`);
    this.name = 'NoteTooLongError';
  }
}

let running = 0;
const waiting: (() => void)[] = [];

async function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  if (running < MAX_PROBES_AT_ONCE) running++;
  else await new Promise<void>((resolve) => waiting.push(resolve)); // a finishing probe hands over its slot
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

/**
 * Seconds of audio in the note (reading a few seconds past the limit, never the whole of a long
 * file); throws NoteTooLongError past maxSeconds, or MediaToolError when ffprobe cannot read it.
 */
export function checkNoteLength(open: () => Promise<Readable>, container: AudioContainer, maxSeconds: number, timeoutMs: number): Promise<number> {
  return oneAtATime(async () => {
    const seconds = await probeAudioSeconds(await open(), container, maxSeconds + 5, timeoutMs);
    if (seconds > maxSeconds) throw new NoteTooLongError(maxSeconds);
    return seconds;
  });
}
