/**
 * A conversion whose scratch folder's disk (a real small file system) is full, or runs out part-way,
 * is a StorageFault (the worker tries it again later; it is not the note's doing) whatever ffmpeg
 * says, and never a MediaToolError, which marks a note unplayable. The note is at fault only when
 * its encoding fails with nothing written. The converter once took ffmpeg's last line
 * for the note's ("Conversion failed!", "Error initializing output stream 0:0 --"), and a disk
 * that filled during ffmpeg's last write gave an M4A cut short, stored as converted.
 */
import { execFile } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Fastify from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startConverter, type Converter } from '../../../server/audio/converter.js';
import { convertToM4a, MediaToolError } from '../../../server/audio/ffmpeg.js';
import { storageFaultOf, StorageFault } from '../../../server/storage/faults.js';
import { decodedSeconds, makeSpeech } from '../support/audio.js';
import { mountSmallDisk, type SmallDisk } from '../support/small-disk.js';

const PAGE = 4096;
const pages = (bytes: number) => Math.ceil(bytes / PAGE);
/** The first pass's PCM: 16 kHz mono 32-bit float (server/audio/ffmpeg.ts). */
const PCM_BYTES_PER_MS = 64;
const log = Fastify({ logger: { level: 'silent' } }).log;
const opts = { timeoutMs: 30_000, maxSeconds: 75 };

let dir: string;
let speech: string;
let speechSeconds: number;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-converter-full-'));
  ({ seconds: speechSeconds } = await makeSpeech(dir));
  speech = path.join(dir, 'speech.webm');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('a conversion on a disk that runs out', () => {
  let disk: SmallDisk;
  let converter: Converter;
  const output = () => path.join(disk.dir, 'note.m4a');

  beforeAll(async () => {
    disk = await mountSmallDisk(4);
    converter = startConverter(log);
  });
  afterAll(async () => {
    await converter?.close();
    await disk?.remove();
  });
  afterEach(async () => {
    await rm(output(), { force: true });
    await disk.free();
  });

  it('should be a storage fault at whichever step the room runs out, whatever ffmpeg says, and convert the whole note with room', async () => {
    const { durationMs } = await converter.convert(speech, 'webm', output(), opts);
    const m4aPages = pages((await stat(output())).size);
    await rm(output());
    const pcmPages = pages(durationMs * PCM_BYTES_PER_MS);

    const said: string[] = [];
    // No room; half the PCM; the PCM and not a byte more; then parts of the M4A.
    for (const leave of [0, Math.floor(pcmPages / 2), pcmPages, pcmPages + 1, pcmPages + m4aPages - 1]) {
      await disk.fill(leave * PAGE);
      const failure = await converter.convert(speech, 'webm', output(), opts).then(
        () => 'converted',
        (err: unknown) => err,
      );
      expect(failure, `with ${leave} pages free`).toBeInstanceOf(StorageFault);
      expect(storageFaultOf(failure)).toBe('disk_full');
      said.push((failure as Error).message);
      await rm(output(), { force: true });
      await disk.free();
    }
    console.log(`what the conversions met, from no room to one page short:\n${said.join('\n')}`);
    // The first pass's PCM is written by the converter (an ENOSPC of its own), the M4A by ffmpeg (its own words).
    expect(said.filter((message) => message.includes('ENOSPC'))).not.toEqual([]);
    expect(said.filter((message) => /ffmpeg|output stream|trailer/i.test(message) && !message.includes('ENOSPC'))).not.toEqual([]);

    await disk.fill((pcmPages + m4aPages + 1) * PAGE);
    const converted = await converter.convert(speech, 'webm', output(), opts);
    expect(converted.durationMs).toBe(durationMs);
    expect(Math.abs((await decodedSeconds(output())) - speechSeconds)).toBeLessThan(0.2);
  });
});

describe('ffmpeg failing to write the M4A, in the words of a stand-in', () => {
  let bin: string;
  let savedPath: string | undefined;

  /**
   * A stand-in ffmpeg: the real one, except for the encoding of the M4A, which fails as the
   * issue's full disk made it fail, and, with the note's fault, fails sent nowhere too.
   */
  async function standIn(notesFault: boolean): Promise<void> {
    const real = (await promisify(execFile)('sh', ['-c', 'command -v ffmpeg'], { env: { PATH: savedPath } })).stdout.trim();
    await writeFile(
      path.join(bin, 'ffmpeg'),
      [
        '#!/bin/sh',
        'for arg in "$@"; do last="$arg"; done',
        'case "$last" in',
        '  *.m4a) echo "Error initializing output stream 0:0 -- " >&2; echo "Conversion failed!" >&2; exit 1 ;;',
        notesFault ? '  -) echo "[aac @ 0x1] Input contains (near) NaN/+-Inf" >&2; exit 1 ;;' : '',
        'esac',
        `exec ${real} "$@"`,
      ].join('\n'),
    );
    await chmod(path.join(bin, 'ffmpeg'), 0o755);
  }

  beforeAll(async () => {
    bin = path.join(dir, 'bin');
    await mkdir(bin);
    savedPath = process.env.PATH;
    process.env.PATH = `${bin}:${savedPath}`;
  });
  afterAll(() => {
    process.env.PATH = savedPath;
  });

  it('should be a storage fault when the same encoding sent nowhere succeeds', async () => {
    await standIn(false);
    const failure = await convertToM4a(createReadStream(speech), 'webm', path.join(dir, 'note.m4a'), opts).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(StorageFault);
    expect((failure as Error).message).toContain('Conversion failed!');
  });

  it('should be the note’s fault when the encoding fails sent nowhere too', async () => {
    await standIn(true);
    const failure = await convertToM4a(createReadStream(speech), 'webm', path.join(dir, 'note.m4a'), opts).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(MediaToolError);
    expect((failure as MediaToolError).message).toContain('NaN');
  });
});
