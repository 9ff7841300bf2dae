import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertToM4a, MediaToolError } from '../../../server/audio/ffmpeg.js';
import { MAX_HELD_MOOF_BYTES, MAX_TOP_LEVEL_BOXES, Mp4FragmentRepair } from '../../../server/audio/mp4-repair.js';
import { box, repair } from './fragments.js';

const WEBKIT_RECORDING = path.join(import.meta.dirname, 'fixtures', 'webkitgtk-repeated-moof.mp4');
const ftyp = box('ftyp', Buffer.from('mp42\0\0\0\0mp42isom', 'latin1'));
const moof = box('moof', Buffer.from('fragment 6'));
const mdat = box('mdat', Buffer.from('aac frames'));
/** The defect after whatever comes first: whether it is still repaired says whether the walker went on. */
const thenDefect = (...first: Buffer[]) => Buffer.concat([ftyp, ...first, moof, moof, mdat]);

/** A box header with a 32-bit size field of `size` (0 means "to the end", 1 "a 64-bit size follows"). */
function header(size: number, type: string, largesize?: bigint): Buffer {
  const h = Buffer.alloc(largesize === undefined ? 8 : 16);
  h.writeUInt32BE(size, 0);
  h.write(type, 4, 'latin1');
  if (largesize !== undefined) h.writeBigUInt64BE(largesize, 8);
  return h;
}

/** `depth` boxes each inside the last, in one top-level box. */
function nested(type: string, depth: number): Buffer {
  const out = Buffer.alloc(depth * 8);
  for (let i = 0; i < depth; i++) {
    out.writeUInt32BE(out.length - i * 8, i * 8);
    out.write(type, i * 8 + 4, 'latin1');
  }
  return out;
}

let dir: string;
let recording: Buffer;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-moof-hostile-'));
  recording = await readFile(WEBKIT_RECORDING);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('the fragment repair, given a file that is not what it claims', () => {
  it.each([
    ['a box of size 0 ("to the end of the file")', thenDefect(header(0, 'free'))],
    ['a box smaller than its own header', thenDefect(header(7, 'free'))],
    ['a 64-bit size smaller than its header', thenDefect(header(1, 'free', 15n))],
    ['a 64-bit size past 2^53', thenDefect(header(1, 'mdat', 2n ** 63n))],
    ['a box larger than the file', thenDefect(header(0xffff_ffff, 'mdat'))],
    ['a fragment header larger than the file', thenDefect(header(50_000, 'moof'))],
  ])('should pass %s and all after it through untouched', async (_name, file) => {
    expect(await repair(file)).toEqual({ out: file, repaired: 0 });
    expect(await repair(file, [1])).toEqual({ out: file, repaired: 0 });
  });

  it('should keep the first copy when the second is cut short, and any truncated tail as it came', async () => {
    for (const file of [Buffer.concat([moof, moof.subarray(0, moof.length - 1)]), moof.subarray(0, 3)]) {
      expect(await repair(file, [2])).toEqual({ out: file, repaired: 0 });
    }
    const cutInData = Buffer.concat([moof, moof, mdat.subarray(0, 5)]);
    const { out, repaired } = await repair(cutInData, [2]);
    expect({ repaired, tail: out.subarray(2 * moof.length) }).toEqual({ repaired: 1, tail: mdat.subarray(0, 5) });
  });

  it('should stream a fragment header too large to hold instead of keeping it', async () => {
    const repairer = new Mp4FragmentRepair();
    let seen = 0;
    repairer.on('data', (piece: Buffer) => (seen += piece.length));
    const big = MAX_HELD_MOOF_BYTES + 1;
    const part = Buffer.concat([header(big, 'moof'), Buffer.alloc(64 * 1024)]);
    repairer.write(part);
    await new Promise(setImmediate);
    expect(seen).toBe(part.length); // passed on at once, while the box's end has not come
    repairer.end(Buffer.alloc(big - part.length));
    await new Promise((resolve) => repairer.on('end', resolve));
    expect({ seen, repaired: repairer.repaired }).toEqual({ seen: big, repaired: 0 });
  });

  it('should stop looking after its limit of boxes, quickly, and change nothing past it', async () => {
    const file = thenDefect(Buffer.alloc(MAX_TOP_LEVEL_BOXES * 8, header(8, 'free')));
    const started = Date.now();
    expect(await repair(file, [65_536])).toEqual({ out: file, repaired: 0 });
    expect(Date.now() - started).toBeLessThan(5_000);
    // One box fewer and the defect is still reached: the limit is what stopped it.
    expect((await repair(thenDefect(Buffer.alloc((MAX_TOP_LEVEL_BOXES - 5) * 8, header(8, 'free'))), [65_536])).repaired).toBe(1);
  });

  it('should not descend into boxes however deeply they nest, and go on after them', async () => {
    const deep = nested('moov', 100_000);
    const { out, repaired } = await repair(thenDefect(deep), [4096]);
    expect(repaired).toBe(1);
    expect(out.subarray(ftyp.length, ftyp.length + deep.length).equals(deep)).toBe(true);
  });

  it('should, for any damage to a real WebKit recording, only ever rename whole moof boxes, and move no byte', async () => {
    let seed = 21;
    const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (let round = 0; round < 300; round++) {
      const file = Buffer.from(recording.subarray(0, recording.length - random(4) * random(2000)));
      for (let flips = random(6); flips > 0; flips--) file[random(file.length)] = random(256);
      if (random(2)) file.writeUInt32BE(random(2) ? random(16) : random(2 ** 32), random(file.length - 4));
      const { out } = await repair(file, [1 + random(5000)]);
      expect(out.length).toBe(file.length);
      for (let i = 0; i < file.length; i++) {
        if (out[i] === file[i]) continue;
        const at = out.indexOf('free', Math.max(0, i - 3), 'latin1');
        expect(at >= i - 3 && at <= i && file.toString('latin1', at, at + 4) === 'moof').toBe(true);
        i = at + 3;
      }
    }
  });
});

describe('the converter, given a broken MP4', () => {
  it('should end, refusing or converting, every damaged file within its time limit', async () => {
    const cases = [thenDefect(header(0, 'free')), thenDefect(header(1, 'mdat', 2n ** 63n)), thenDefect(nested('moov', 10_000)), recording.subarray(0, 900)];
    for (const body of cases) {
      const out = path.join(dir, `${randomUUID()}.m4a`);
      const result = await convertToM4a(Readable.from([body]), 'mp4', out, { timeoutMs: 20_000, maxSeconds: 75 }).then(
        () => 'converted',
        (e: unknown) => e,
      );
      if (result !== 'converted') expect(result).toBeInstanceOf(MediaToolError);
      expect(result instanceof MediaToolError && result.timedOut).toBe(false);
    }
  });
});
