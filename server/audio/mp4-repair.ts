/**
 * Owns the one repair made to a recording on its way into ffmpeg: a fragment header (`moof`)
 * written twice in a row. WebKitGTK 2.50's recorder ends a fragmented MP4 that way in about two
 * runs of three (moof, the same moof, mdat; its first box, ftyp, comes twice too): by its source,
 * its appsink takes the first buffer after a (re)start both as preroll and as sample, and stop()
 * flushes the pipeline before the last fragment is written. The first copy's sample offsets count
 * from itself, so they land in the second copy: ffmpeg decodes header bytes as AAC, fails, and the
 * note loses its whole last fragment (up to a second).
 *
 * The first of two byte-identical adjacent top-level moof boxes is renamed `free`, which MP4 readers
 * skip; nothing else changes and no byte moves, so every offset in the file stays true. Only
 * top-level box headers are read (nothing nested); a size below its own header (0, "to the end of
 * the file", included) or too many boxes ends the looking, a moof too large to hold is passed on
 * unexamined, and whatever the repair cannot judge passes through as it came, for ffmpeg to judge.
 */
import { Transform, type TransformCallback } from 'node:stream';

/** Largest fragment header held back for comparison: WebKit's hold about 0.6 kB a second of audio. */
export const MAX_HELD_MOOF_BYTES = 1 << 20;
/** Top-level boxes examined at most: a 60 s WebKit note has about 125, one with 20 ms fragments 6,000. */
export const MAX_TOP_LEVEL_BOXES = 10_000;

const MOOF = Buffer.from('moof', 'latin1');
const FREE = Buffer.from('free', 'latin1');

/** The same box as free space: same size, type `free`. */
function asFree(box: Buffer): Buffer {
  const copy = Buffer.from(box);
  FREE.copy(copy, 4);
  return copy;
}

export class Mp4FragmentRepair extends Transform {
  /** Repeated fragment headers turned into free space so far. */
  repaired = 0;
  /** The next box's header, as far as it has arrived (8 bytes, or 16 with a 64-bit size). */
  private header: Buffer = Buffer.alloc(0);
  /** Bytes of the current box still to pass on unexamined. */
  private skip = 0;
  /** A fragment header being collected whole, and how many of its bytes are still to come. */
  private moof: Buffer[] | undefined;
  private moofMissing = 0;
  /** A complete fragment header, held until the box after it shows whether it is a repeat. */
  private held: Buffer | undefined;
  private boxes = 0;
  /** Set once the file stops looking like boxes we may judge: everything after passes through. */
  private stopped = false;

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.stopped) {
        this.push(chunk.subarray(at));
        break;
      }
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - at);
        this.push(chunk.subarray(at, at + n));
        this.skip -= n;
        at += n;
      } else if (this.moof) {
        const n = Math.min(this.moofMissing, chunk.length - at);
        this.moof.push(chunk.subarray(at, at + n));
        this.moofMissing -= n;
        at += n;
        if (this.moofMissing === 0) this.moofComplete();
      } else {
        const n = Math.min(this.headerLength() - this.header.length, chunk.length - at);
        const piece = chunk.subarray(at, at + n);
        this.header = this.header.length === 0 ? piece : Buffer.concat([this.header, piece]);
        at += n;
        if (this.header.length === this.headerLength()) this.boxStarts();
      }
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    // A truncated file ends as it came: the held header, any partial one, any partial box header.
    this.release();
    if (this.moof) this.push(Buffer.concat(this.moof));
    if (this.header.length > 0) this.push(this.header);
    done();
  }

  /** 8, or 16 once the first 8 bytes say the size follows as 64 bits. */
  private headerLength(): number {
    return this.header.length >= 8 && this.header.readUInt32BE(0) === 1 ? 16 : 8;
  }

  private boxStarts(): void {
    const header = this.header;
    this.header = Buffer.alloc(0);
    const size32 = header.readUInt32BE(0);
    const size = size32 === 1 ? Number(header.readBigUInt64BE(8)) : size32;
    // Size 0 ("up to the end of the file") is below the header too: nothing after it is a box we can find.
    if (++this.boxes > MAX_TOP_LEVEL_BOXES || size < header.length) {
      this.release();
      this.push(header);
      this.stopped = true;
      return;
    }
    if (header.subarray(4, 8).equals(MOOF) && size <= MAX_HELD_MOOF_BYTES) {
      this.moof = [header];
      this.moofMissing = size - header.length;
      if (this.moofMissing === 0) this.moofComplete();
      return;
    }
    this.release();
    this.push(header);
    this.skip = size - header.length;
  }

  private moofComplete(): void {
    const box = Buffer.concat(this.moof!);
    this.moof = undefined;
    if (this.held?.equals(box)) {
      this.push(asFree(this.held));
      this.held = undefined;
      this.repaired++;
    } else this.release();
    this.held = box;
  }

  private release(): void {
    if (this.held) this.push(this.held);
    this.held = undefined;
  }
}
