import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { AudioSniffer, SNIFF_BYTES, sniffAudio } from '../../../server/audio/sniff.js';
import { FORMATS, makeSpeech } from '../support/audio.js';
import { ffconcatNaming, hlsNaming, withId3 } from '../support/hostile.js';
import { WEBM_HEADER } from '../support/uploads.js';

const run = promisify(execFile);
let dir: string;
let wav: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-sniff-'));
  ({ wav } = await makeSpeech(dir));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The first bytes of `wav` encoded by ffmpeg with these arguments. */
async function headOf(name: string, args: string[]): Promise<Buffer> {
  const file = path.join(dir, name);
  await run('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', '-i', wav, '-t', '1', ...args, file]);
  return (await readFile(file)).subarray(0, SNIFF_BYTES);
}

describe('the audio sniffer', () => {
  it.each([
    ['WebM/Opus', FORMATS['WebM/Opus'].file, 'webm'],
    ['Ogg/Opus', FORMATS['Ogg/Opus'].file, 'ogg'],
    ['fragmented MP4/AAC', FORMATS['MP4/AAC'].file, 'mp4'],
  ])('should accept %s as browsers record it', async (_name, file, container) => {
    expect(sniffAudio((await readFile(path.join(dir, file))).subarray(0, SNIFF_BYTES))).toBe(container);
  });

  it('should accept Matroska, Ogg/Vorbis and a plain M4A', async () => {
    expect(sniffAudio(await headOf('a.mka', ['-c:a', 'libopus', '-f', 'matroska']))).toBe('webm');
    expect(sniffAudio(await headOf('a.ogg', ['-c:a', 'libvorbis', '-f', 'ogg']))).toBe('ogg');
    expect(sniffAudio(await headOf('a.m4a', ['-c:a', 'aac', '-f', 'ipod']))).toBe('mp4');
  });

  it.each([
    ['MP3 with an ID3 tag', ['-c:a', 'libmp3lame', '-f', 'mp3']],
    ['MP3 without a tag', ['-c:a', 'libmp3lame', '-write_xing', '0', '-id3v2_version', '0', '-f', 'mp3']],
    ['FLAC', ['-c:a', 'flac', '-f', 'flac']],
    ['FLAC in Ogg', ['-c:a', 'flac', '-f', 'ogg']],
    ['WAV', ['-c:a', 'pcm_s16le', '-f', 'wav']],
    ['ADTS AAC', ['-c:a', 'aac', '-f', 'adts']],
  ])('should refuse %s', async (name, args) => {
    expect(sniffAudio(await headOf(name.replace(/\W/g, ''), args))).toBeUndefined();
  });

  it.each([
    ['an ID3 tag then an HLS playlist', withId3(hlsNaming('/etc/passwd.m4a'))],
    ['an ID3 tag then an ffconcat list', withId3(ffconcatNaming('note.m4a'))],
    ['a bare HLS playlist', Buffer.from(hlsNaming('/x.m4a'))],
    ['text', Buffer.from('hello, this is not audio at all')],
    ['the EBML magic alone', Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x81, 0x00])],
    ['an EBML header of another document type', Buffer.from(WEBM_HEADER.toString('latin1').replace('webm', 'wxyz'), 'latin1')],
    ['an Ogg page that does not begin a stream', Buffer.concat([Buffer.from('OggS\x00\x00', 'latin1'), Buffer.alloc(40)])],
    ['an ftyp box of an impossible size', Buffer.concat([Buffer.from([0xff, 0xff, 0xff, 0xff]), Buffer.from('ftypisom'), Buffer.alloc(20)])],
    ['nothing', Buffer.alloc(0)],
  ])('should refuse %s', (_name, head) => {
    expect(sniffAudio(head.subarray(0, SNIFF_BYTES))).toBeUndefined();
  });

  it.each([
    ['in one piece', [WEBM_HEADER.length + 1000]],
    ['in pieces smaller than it needs to decide', [3, 40, 41, 200, 1000]],
  ])('should pass every byte on, in order, when a recording comes %s', async (_name, ends) => {
    const body = Buffer.concat([WEBM_HEADER, Buffer.alloc(1000, 7)]);
    const pieces = ends.map((end, i) => body.subarray(i === 0 ? 0 : ends[i - 1], i === ends.length - 1 ? body.length : end));
    const sniffer = new AudioSniffer();
    const out: Buffer[] = [];
    for await (const chunk of Readable.from(pieces).pipe(sniffer)) out.push(chunk as Buffer);
    expect(Buffer.concat(out).equals(body)).toBe(true);
    expect(sniffer.container).toBe('webm');
  });
});
