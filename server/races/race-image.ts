/**
 * A race's picture as the operator gives it (`add-race --image FILE`): a JPEG, PNG or WebP, known by
 * its first bytes and never by its name, small enough for a phone on a venue's network, and of a
 * size in pixels a phone can decode. Anything else is refused with a sentence that says what to give.
 */
import { open, stat } from 'node:fs/promises';

/** A card is 320x200 CSS pixels, 640x400 on a phone's screen: a good photo of that is 50-150 KB. */
export const MAX_RACE_IMAGE_BYTES = 512 * 1024;
/** Past this on a side, a few hundred KB of PNG can decode to hundreds of MB in a phone's memory. */
export const MAX_RACE_IMAGE_SIDE = 4096;

export interface RaceImageFile {
  bytes: Buffer;
  type: 'image/jpeg' | 'image/png' | 'image/webp';
  extension: 'jpg' | 'png' | 'webp';
  width: number;
  height: number;
}

/** A picture the catalogue will not take; its message is the sentence for the operator. */
export class ImageRefused extends Error {}

type Sniffed = Pick<RaceImageFile, 'type' | 'extension' | 'width' | 'height'>;

function pngOf(b: Buffer): Sniffed | undefined {
  if (b.length < 24 || !b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) || b.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return { type: 'image/png', extension: 'png', width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

/** The frame header (SOFn) carries the size; the segments before it are skipped by their lengths. */
function jpegOf(b: Buffer): Sniffed | undefined {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8 || b[2] !== 0xff) return undefined;
  let at = 2;
  while (at + 9 <= b.length) {
    if (b[at] !== 0xff) return undefined;
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) return { type: 'image/jpeg', extension: 'jpg', height: b.readUInt16BE(at + 5), width: b.readUInt16BE(at + 7) };
    at += 2 + b.readUInt16BE(at + 2);
  }
  return undefined;
}

function webpOf(b: Buffer): Sniffed | undefined {
  if (b.length < 30 || b.toString('latin1', 0, 4) !== 'RIFF' || b.toString('latin1', 8, 12) !== 'WEBP') return undefined;
  const webp = (width: number, height: number): Sniffed => ({ type: 'image/webp', extension: 'webp', width, height });
  switch (b.toString('latin1', 12, 16)) {
    case 'VP8 ':
      return webp(b.readUInt16LE(26) & 0x3fff, b.readUInt16LE(28) & 0x3fff);
    case 'VP8L':
      return webp(1 + (((b[22]! & 0x3f) << 8) | b[21]!), 1 + (((b[24]! & 0x0f) << 10) | (b[23]! << 2) | ((b[22]! & 0xc0) >> 6)));
    case 'VP8X':
      return webp(1 + b.readUIntLE(24, 3), 1 + b.readUIntLE(27, 3));
    default:
      return undefined;
  }
}

/** The picture's type and size in pixels from its bytes, or a refusal. */
export function sniffRaceImage(bytes: Buffer): Sniffed {
  const sniffed = pngOf(bytes) ?? jpegOf(bytes) ?? webpOf(bytes);
  if (!sniffed) throw new ImageRefused('is not a JPEG, PNG or WebP picture (its content says so, whatever its name). Give a photo or drawing in one of those.');
  const { width, height } = sniffed;
  if (width === 0 || height === 0 || width > MAX_RACE_IMAGE_SIDE || height > MAX_RACE_IMAGE_SIDE) {
    throw new ImageRefused(`is ${width}x${height} pixels; a race's picture can be at most ${MAX_RACE_IMAGE_SIDE} on a side (640x400 is plenty for the card).`);
  }
  return sniffed;
}

/** Reads and checks the picture in `file`; reads no more than the cap allows, whatever the file's size. */
export async function readRaceImage(file: string): Promise<RaceImageFile> {
  let handle;
  try {
    if (!(await stat(file)).isFile()) throw new ImageRefused('is not a file.');
    handle = await open(file, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES') throw new ImageRefused(`cannot be read (${code}).`);
    throw err;
  }
  try {
    const bytes = Buffer.alloc(MAX_RACE_IMAGE_BYTES + 1);
    let length = 0;
    while (length < bytes.length) {
      const { bytesRead } = await handle.read(bytes, length, bytes.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > MAX_RACE_IMAGE_BYTES) {
      throw new ImageRefused(`is larger than ${MAX_RACE_IMAGE_BYTES / 1024} KiB, too much for a card on a phone; save it at about 640x400 pixels (a JPEG or WebP of that is 50-150 KB).`);
    }
    const exact = Buffer.from(bytes.subarray(0, length));
    return { bytes: exact, ...sniffRaceImage(exact) };
  } finally {
    await handle.close();
  }
}
