/** A speech WAV made with espeak-ng, once per machine, for the fake microphone. */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const SENTENCE =
  "You've got this! Keep going, every mile is one step closer. We are so proud of you. " + 'Breathe, smile, and run your race. See you at the finish line!';

export async function speechWav(): Promise<string> {
  const file = path.join(os.tmpdir(), 'milenotes-speech.wav');
  if (!existsSync(file)) {
    const raw = `${file}.raw.wav`;
    await promisify(execFile)('espeak-ng', ['-s', '150', '-w', raw, SENTENCE]);
    // Chromium's fake capture wants plain 16-bit PCM; 48 kHz mono is what a phone gives.
    await promisify(execFile)('ffmpeg', ['-y', '-loglevel', 'error', '-i', raw, '-ar', '48000', '-ac', '1', '-c:a', 'pcm_s16le', file]);
  }
  return file;
}
