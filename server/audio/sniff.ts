/** Tells audio from anything else by its first bytes, while the upload streams past. */
import { Transform, type TransformCallback } from 'node:stream';

export type AudioContainer = 'webm' | 'ogg' | 'mp4' | 'wav' | 'mp3' | 'aac' | 'flac';

/** Bytes needed to decide; shorter bodies are judged on what they have. */
const SNIFF_BYTES = 12;

const ascii = (b: Buffer, start: number, text: string) => b.subarray(start, start + text.length).toString('latin1') === text;

/** The container the bytes start with, or undefined when they are not audio we can convert. */
export function sniffAudio(head: Buffer): AudioContainer | undefined {
  if (head.length >= 4 && head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return 'webm';
  if (ascii(head, 0, 'OggS')) return 'ogg';
  // ISO BMFF: MP4/M4A, including Safari's fragmented MP4, opens with an 'ftyp' box.
  if (ascii(head, 4, 'ftyp')) return 'mp4';
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'WAVE')) return 'wav';
  if (ascii(head, 0, 'fLaC')) return 'flac';
  if (ascii(head, 0, 'ID3')) return 'mp3';
  if (head.length >= 2 && head[0] === 0xff) {
    const b1 = head[1]!;
    // ADTS AAC: 12-bit sync, layer bits 00. MPEG audio (MP3): 11-bit sync, layer bits not 00.
    if ((b1 & 0xf6) === 0xf0) return 'aac';
    if ((b1 & 0xe0) === 0xe0 && (b1 & 0x06) !== 0) return 'mp3';
  }
  return undefined;
}

export class NotAudioError extends Error {
  constructor(readonly empty: boolean) {
    super(empty ? 'The upload was empty.' : 'The upload is not an audio recording.');
    this.name = 'NotAudioError';
  }
}

/** Passes bytes through once the first ones look like audio; fails the stream otherwise. */
export class AudioSniffer extends Transform {
  container: AudioContainer | undefined;
  private head: Buffer[] = [];
  private headLength = 0;

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    if (this.container) return done(null, chunk);
    this.head.push(chunk);
    this.headLength += chunk.length;
    if (this.headLength < SNIFF_BYTES) return done();
    this.decide(done);
  }

  override _flush(done: TransformCallback): void {
    if (this.container) return done();
    this.decide(done);
  }

  private decide(done: TransformCallback): void {
    const head = Buffer.concat(this.head);
    this.head = [];
    this.container = sniffAudio(head);
    if (!this.container) return done(new NotAudioError(head.length === 0));
    done(null, head);
  }
}
