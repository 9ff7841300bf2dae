/**
 * A race's picture as this server makes it from the operator's file (`add-race --image`,
 * `edit-race --image`): decoded by libvips (sharp), cut to the card's 8:5 as the card shows it
 * (object-fit: cover, centred), at most 640x400, and written again as WebP with no metadata. What
 * reaches a phone is what this wrote, never the operator's bytes: a header that lies about the
 * frame's size cannot pass, since the size read is the one libvips decodes. A file that is no JPEG,
 * PNG or WebP, does not decode cleanly, or whose real frame is past the limit is refused with a
 * sentence that says what to give.
 */
import { type FileHandle, open, stat } from 'node:fs/promises';
import type { Metadata, OutputInfo } from 'sharp';

/** The operator's file, read whole: a phone's photo is 2-8 MB. Nothing past this is read. */
export const MAX_RACE_IMAGE_INPUT_BYTES = 16 * 1024 * 1024;
/** 25 megapixels: a 6000x4000 camera photo passes; decoding one takes about 75 MB in the CLI. */
export const MAX_RACE_IMAGE_PIXELS = 25_000_000;
/** The card is 16rem wide at 8:5 (256x160 CSS pixels): 640x400 covers a phone's 2.5x screen. */
export const RACE_CARD_SIZE = { width: 640, height: 400 } as const;
/** Smaller than this, a card would show a blur: a logo or thumbnail, not a picture for it. */
export const MIN_RACE_CARD_SIZE = { width: 160, height: 100 } as const;
/** What a made picture may weigh, stored and served (server/routes/race-images.ts); 640x400 WebP is 20-80 KB. */
export const MAX_RACE_IMAGE_BYTES = 512 * 1024;
/** Good for a photo at a card's size, a third of what JPEG at that look weighs. */
const WEBP_QUALITY = 78;

export interface RaceImageFile {
  bytes: Buffer;
  type: 'image/webp';
  extension: 'webp';
  width: number;
  height: number;
  /** The operator's file's size, for the CLI to say what was saved. */
  inputBytes: number;
}

/** A picture the catalogue will not take; its message is the sentence for the operator. */
export class ImageRefused extends Error {}

/** Only these are handed to libvips: it would also parse SVG, TIFF, PDF..., which a card needs none of. */
function formatOf(b: Buffer): 'jpeg' | 'png' | 'webp' | undefined {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  return undefined;
}

const megapixels = (pixels: number) => (pixels / 1e6).toFixed(1).replace(/\.0$/, '');

/** libvips' first line, without its loader's name: enough for the operator to know why. */
const reasonOf = (err: unknown) =>
  String((err as Error).message ?? err)
    .split('\n')[0]!
    .replace(/^Vips\w*: /, '')
    .slice(0, 160);

/** The part of a w x h picture the card shows (8:5, centred), and the size it is written at. */
function cardCut(width: number, height: number): { width: number; height: number } {
  const cutWidth = Math.min(width, Math.floor((height * RACE_CARD_SIZE.width) / RACE_CARD_SIZE.height));
  const outWidth = Math.min(RACE_CARD_SIZE.width, cutWidth);
  return { width: outWidth, height: Math.round((outWidth * RACE_CARD_SIZE.height) / RACE_CARD_SIZE.width) };
}

/** The card's picture made from the operator's bytes, or a refusal. Changes nothing anywhere. */
export async function makeRaceImage(input: Buffer): Promise<RaceImageFile> {
  const format = formatOf(input);
  if (!format) throw new ImageRefused('is not a JPEG, PNG or WebP picture (its content says so, whatever its name). Give a photo or drawing in one of those.');
  // Loaded here, by the CLI that makes pictures: the server, which only serves them (and imports the limits above), never loads libvips.
  const { default: sharp } = await import('sharp');
  // failOn 'warning': a file libjpeg or libpng must guess at (stray bytes, a cut end) is no picture we serve.
  const options = { limitInputPixels: MAX_RACE_IMAGE_PIXELS, failOn: 'warning', pages: 1 } as const;
  let meta: Metadata;
  try {
    // Headers only, no pixels decoded: the limit is checked below, to say the size in the sentence.
    meta = await sharp(input, { ...options, limitInputPixels: false }).metadata();
  } catch (err) {
    throw new ImageRefused(`cannot be read as a picture (${reasonOf(err)}). Save it again from a photo editor as JPEG, PNG or WebP.`);
  }
  // The frame's real size, as libvips reads it (the header the decoder uses, not the first that looks like one).
  const { width = 0, height = 0 } = meta;
  if (meta.format !== format || width * height > MAX_RACE_IMAGE_PIXELS || width === 0 || height === 0) {
    throw new ImageRefused(
      `is ${width}x${height} pixels (${megapixels(width * height)} megapixels); a race's picture can be at most ${megapixels(MAX_RACE_IMAGE_PIXELS)} megapixels (640x400 is plenty for the card).`,
    );
  }
  // A phone photo's EXIF orientation turns it: the cut is of the picture as it is seen.
  const turned = (meta.orientation ?? 1) >= 5;
  const out = cardCut(turned ? height : width, turned ? width : height);
  if (out.width < MIN_RACE_CARD_SIZE.width) {
    throw new ImageRefused(
      `is ${width}x${height} pixels, too small for the card; give one of at least ${MIN_RACE_CARD_SIZE.width}x${MIN_RACE_CARD_SIZE.height} (640x400 is best).`,
    );
  }
  let made: { data: Buffer; info: OutputInfo };
  try {
    made = await sharp(input, options)
      .autoOrient()
      .resize({ ...out, fit: 'cover', position: 'centre' })
      .webp({ quality: WEBP_QUALITY })
      .toBuffer({ resolveWithObject: true });
  } catch (err) {
    throw new ImageRefused(`cannot be decoded as a picture (${reasonOf(err)}). Save it again from a photo editor as JPEG, PNG or WebP.`);
  }
  if (made.data.length > MAX_RACE_IMAGE_BYTES) throw new ImageRefused(`makes a card of more than ${MAX_RACE_IMAGE_BYTES / 1024} KiB; give a plainer picture.`);
  return { bytes: made.data, type: 'image/webp', extension: 'webp', width: made.info.width, height: made.info.height, inputBytes: input.length };
}

/** Reads `file`, no more than the cap allows whatever its size, and makes the card's picture of it. */
export async function readRaceImage(file: string): Promise<RaceImageFile> {
  let handle: FileHandle;
  try {
    if (!(await stat(file)).isFile()) throw new ImageRefused('is not a file.');
    handle = await open(file, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES') throw new ImageRefused(`cannot be read (${code}).`);
    throw err;
  }
  let input: Buffer;
  try {
    const bytes = Buffer.alloc(MAX_RACE_IMAGE_INPUT_BYTES + 1);
    let length = 0;
    while (length < bytes.length) {
      const { bytesRead } = await handle.read(bytes, length, bytes.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > MAX_RACE_IMAGE_INPUT_BYTES) {
      throw new ImageRefused(
        `is larger than ${MAX_RACE_IMAGE_INPUT_BYTES / 1024 / 1024} MiB; give a photo of at most ${megapixels(MAX_RACE_IMAGE_PIXELS)} megapixels, saved as JPEG, PNG or WebP.`,
      );
    }
    input = bytes.subarray(0, length);
  } finally {
    await handle.close();
  }
  return makeRaceImage(input);
}
