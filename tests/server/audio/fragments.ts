/** Fragmented MP4s for the repair's tests: ffmpeg's own, WebKit's defect made from them, and the repair run over chunks. */
import { execFile } from 'node:child_process';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { Mp4FragmentRepair } from '../../../server/audio/mp4-repair.js';

const run = promisify(execFile);

/**
 * `seconds` of `wav` as AAC in fragmented MP4 cut like WebKit's: one fragment a second, sample
 * offsets counted from each moof (`default_base_moof`, as WebKit's tfhd without a base offset).
 */
export async function fragmentedAac(wav: string, seconds: number, out: string): Promise<void> {
  await run('ffmpeg', [
    '-nostdin',
    '-loglevel',
    'error',
    '-y',
    '-i',
    wav,
    '-t',
    String(seconds),
    '-ac',
    '1',
    '-ar',
    '48000',
    '-c:a',
    'aac',
    '-b:a',
    '64k',
    '-movflags',
    'empty_moov+default_base_moof',
    '-frag_duration',
    '1000000',
    '-f',
    'mp4',
    out,
  ]);
}

export interface Box {
  type: string;
  start: number;
  size: number;
}

/** The top-level boxes of a well-formed file (test files only: no limits). */
export function topLevelBoxes(file: Buffer): Box[] {
  const boxes: Box[] = [];
  for (let at = 0; at + 8 <= file.length; ) {
    const size = file.readUInt32BE(at);
    if (size < 8) throw new Error(`box of size ${size} at ${at}`);
    boxes.push({ type: file.toString('latin1', at + 4, at + 8), start: at, size });
    at += size;
  }
  return boxes;
}

/** WebKitGTK's defect: the last moof written twice, its mdat after the second copy. */
export function repeatLastMoof(file: Buffer): Buffer {
  const last = topLevelBoxes(file)
    .filter((b) => b.type === 'moof')
    .at(-1)!;
  const end = last.start + last.size;
  return Buffer.concat([file.subarray(0, end), file.subarray(last.start, end), file.subarray(end)]);
}

/** A box of `type` around `body`. */
export function box(type: string, body: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.length, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, body]);
}

/** Runs the repair over `file` cut into chunks of the given sizes (cycled), as a file stream would deliver it. */
export async function repair(file: Buffer, chunkSizes: number[] = [file.length || 1]): Promise<{ out: Buffer; repaired: number }> {
  const chunks: Buffer[] = [];
  for (let at = 0, i = 0; at < file.length; i++) {
    const n = Math.max(1, chunkSizes[i % chunkSizes.length]!);
    chunks.push(file.subarray(at, at + n));
    at += n;
  }
  const repairer = new Mp4FragmentRepair();
  const out: Buffer[] = [];
  for await (const piece of Readable.from(chunks).pipe(repairer)) out.push(piece as Buffer);
  return { out: Buffer.concat(out), repaired: repairer.repaired };
}
