/**
 * Tells the containers browsers record (WebM/Matroska, Ogg, MP4) from anything else by their
 * first bytes, while the upload streams past. Only these three are accepted: ffmpeg probes
 * other bodies by content (an ID3 tag followed by an HLS playlist or an ffconcat list reads
 * files the playlist names), so the converter is told which demuxer to use from this verdict.
 */
import { Transform, type TransformCallback } from 'node:stream';

export type AudioContainer = 'webm' | 'ogg' | 'mp4';

/** Bytes needed to decide; shorter bodies are judged on what they have. */
export const SNIFF_BYTES = 128;

/** The ffmpeg demuxer for each container: ffmpeg is never left to guess from the content. */
export const DEMUXER: Record<AudioContainer, string> = {
  webm: 'matroska',
  ogg: 'ogg',
  // ffmpeg's ISO-BMFF demuxer is named "mov,mp4,m4a,3gp,3g2,mj2"; `-f mov` selects it.
  mp4: 'mov',
};

const ascii = (b: Buffer, start: number, text: string) => b.subarray(start, start + text.length).toString('latin1') === text;

/** An EBML variable-length integer at `at`: its value (marker bit cleared unless keepMarker) and length. */
function vint(b: Buffer, at: number, keepMarker: boolean): { value: number; length: number } | undefined {
  const first = b[at];
  if (first === undefined || first === 0) return undefined;
  const length = Math.clz32(first) - 23; // 1 for 0b1xxxxxxx ... 8 for 0b00000001
  if (length > 8 || at + length > b.length) return undefined;
  let value = keepMarker ? first : first & (0xff >> length);
  for (let i = 1; i < length; i++) value = value * 256 + b[at + i]!;
  return { value, length };
}

/** The DocType inside an EBML header ("webm", "matroska"), when the header fits in `head`. */
function ebmlDocType(head: Buffer): string | undefined {
  const size = vint(head, 4, false);
  if (!size) return undefined;
  const start = 4 + size.length;
  const end = start + size.value;
  if (end > head.length) return undefined;
  for (let at = start; at < end; ) {
    const id = vint(head, at, true);
    if (!id) return undefined;
    const len = vint(head, at + id.length, false);
    if (!len) return undefined;
    const data = at + id.length + len.length;
    if (data + len.value > end) return undefined;
    if (id.value === 0x4282)
      return head
        .subarray(data, data + len.value)
        .toString('latin1')
        .replace(/\0+$/, '');
    at = data + len.value;
  }
  return undefined;
}

/** An Ogg stream's first page: beginning-of-stream flag set, and an Opus or Vorbis header as its first packet. */
function isOggAudio(head: Buffer): boolean {
  if (!ascii(head, 0, 'OggS') || head[4] !== 0 || head.length < 27) return false;
  if ((head[5]! & 0x02) === 0) return false;
  const packet = 27 + head[26]!;
  return ascii(head, packet, 'OpusHead') || ascii(head, packet, '\x01vorbis');
}

/** An ISO-BMFF 'ftyp' box of a plausible size with a printable major brand (isom, mp42, iso5, M4A ...). */
function isIsoBmff(head: Buffer): boolean {
  if (head.length < 16 || !ascii(head, 4, 'ftyp')) return false;
  const size = head.readUInt32BE(0);
  if (size < 16 || size > 256 || size % 4 !== 0) return false;
  return [...head.subarray(8, 12)].every((c) => c >= 0x20 && c <= 0x7e);
}

/** The container the bytes start with, or undefined when they are not a recording we convert. */
export function sniffAudio(head: Buffer): AudioContainer | undefined {
  if (head.length >= 4 && head.readUInt32BE(0) === 0x1a45dfa3) {
    const docType = ebmlDocType(head);
    return docType === 'webm' || docType === 'matroska' ? 'webm' : undefined;
  }
  if (isOggAudio(head)) return 'ogg';
  if (isIsoBmff(head)) return 'mp4';
  return undefined;
}

export class NotAudioError extends Error {
  constructor(readonly empty: boolean) {
    super(empty ? 'The upload was empty.' : 'The upload is not a WebM, Ogg or MP4 audio recording.');
    this.name = 'NotAudioError';
  }
}

/** Passes bytes through once the first ones look like a recording; fails the stream otherwise. */
export class AudioSniffer extends Transform {
  container: AudioContainer | undefined;
  private head: Buffer[] = [];
  private headLength = 0;

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    if (this.container) {
      done(null, chunk);
      return;
    }
    this.head.push(chunk);
    this.headLength += chunk.length;
    if (this.headLength < SNIFF_BYTES) {
      done();
      return;
    }
    this.decide(done);
  }

  override _flush(done: TransformCallback): void {
    if (this.container) {
      done();
      return;
    }
    this.decide(done);
  }

  private decide(done: TransformCallback): void {
    // Mostly one chunk (64 KB from the socket): passed on as it is, not copied.
    const head = this.head.length === 1 ? this.head[0]! : Buffer.concat(this.head);
    this.head = [];
    this.container = sniffAudio(head);
    if (!this.container) {
      done(new NotAudioError(head.length === 0));
      return;
    }
    done(null, head);
  }
}
