/**
 * How long a note is, measured by decoding: as the engine wrote it, and as the server
 * converted it. WebKitGTK repeats its last fragment header (moof, the same moof, mdat), which ffmpeg
 * cannot read past, so the engine's file is decoded with the repeated copy cut out: a different
 * method from the server's repair (server/audio/mp4-repair.ts renames it), so the two check each other.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { analyseAudio } from '../../../kit/browser/recorder';

/** `file` without the first of each two identical adjacent top-level moof boxes, and how many there were. */
export function withoutRepeatedMoofs(file: Buffer): { bytes: Buffer; repeated: number } {
  if (file.subarray(4, 8).toString('latin1') !== 'ftyp') return { bytes: file, repeated: 0 };
  const boxes: Buffer[] = [];
  for (let at = 0; at + 8 <= file.length; ) {
    const size = file.readUInt32BE(at);
    if (size < 8) throw new Error(`The engine's MP4 has a box of size ${size} at byte ${at}`);
    boxes.push(file.subarray(at, at + size));
    at += size;
  }
  const isMoof = (b: Buffer | undefined) => b?.subarray(4, 8).toString('latin1') === 'moof';
  const kept = boxes.filter((b, i) => !(isMoof(b) && isMoof(boxes[i + 1]) && b.equals(boxes[i + 1]!)));
  return { bytes: Buffer.concat(kept), repeated: boxes.length - kept.length };
}

export interface NoteLengths {
  /** Seconds of audio in the engine's upload. */
  recorded: number;
  /** Seconds of audio in the server's M4A, and its share of speech-loud frames. */
  converted: number;
  activeShare: number;
  /** Fragment headers the engine wrote twice. */
  repeatedMoofs: number;
}

/** Decodes the engine's original (repaired into `scratch` if need be) and the server's conversion. */
export async function noteLengths(original: string, converted: string, scratch: string): Promise<NoteLengths> {
  const { bytes, repeated } = withoutRepeatedMoofs(await readFile(original));
  await writeFile(scratch, bytes);
  const [engine, server] = await Promise.all([analyseAudio(scratch), analyseAudio(converted)]);
  return { recorded: engine.seconds, converted: server.seconds, activeShare: server.activeShare, repeatedMoofs: repeated };
}

/**
 * Seconds of a note's end an engine may lose against the page's clock (the recorder's start event
 * to its stop event, src/recording/engine.ts). WebKitGTK 2.50 drops its unfinished last
 * fragment, up to one 1 s timeslice, in about one run in six (measured 4 of 22); asking for it with
 * requestData() before stop() does not prevent it (2 of 8 runs with, 1 of 8 without). Otherwise
 * every engine wrote within 0.12 s of the clock (measured in 5 WebKit, 6 Firefox, 6 Chromium runs).
 */
export const MAY_LOSE_SECONDS = { webkit: 1 + 0.25, firefox: 0.25, chromium: 0.25 };
