/** Pictures made in code for the race picture tests: a real PNG or JPEG of any size, and files that only look like one or lie. */
import { crc32, deflateSync } from 'node:zlib';

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type, 'latin1'), data])));
  return Buffer.concat([length, Buffer.from(type, 'latin1'), data, crc]);
}

/** A PNG of width x height pixels, a left-to-right gradient of one colour (RGB), that any browser shows. */
export function pngPicture(width: number, height: number, rgb: [number, number, number] = [30, 120, 110]): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB, no interlace
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) {
    const shade = 0.5 + (0.5 * x) / width;
    row.set(
      rgb.map((c) => Math.round(c * shade)),
      1 + x * 3,
    );
  }
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A PNG whose header claims width x height but carries almost nothing: a decompression bomb's shape. */
export function pngHeaderOnly(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IEND', Buffer.alloc(0))]);
}

/** A JPEG of width x height made by libvips: a plain colour at low quality, small however large the frame. */
export async function jpegPicture(width: number, height: number, quality = 1): Promise<Buffer> {
  const { default: sharp } = await import('sharp');
  return sharp({ create: { width, height, channels: 3, background: { r: 40, g: 110, b: 160 } } })
    .jpeg({ quality })
    .toBuffer();
}

/**
 * A lying JPEG: its start (SOI), a standalone RST0 marker and two stray bytes, then an APP15
 * segment holding a frame header (SOF0) of 100x100, then the rest of a real 6000x6000 JPEG. A
 * sniffer that reads the stray bytes as RST0's length (6) lands on the fake header inside APP15; a
 * decoder skips them, skips APP15 by its length, and reads the real frame.
 */
export async function lyingJpeg(): Promise<Buffer> {
  const real = await jpegPicture(6000, 6000);
  const fakeFrame = Buffer.from([0xff, 0xc0, 0x00, 0x0b, 0x08, 0x00, 100, 0x00, 100, 0x01, 0x01, 0x11, 0x00]);
  const app15 = Buffer.concat([Buffer.from([0xff, 0xef, 0x00, 2 + fakeFrame.length]), fakeFrame]);
  return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xd0, 0x00, 0x06]), app15, real.subarray(2)]);
}
