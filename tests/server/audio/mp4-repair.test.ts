import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { convertToM4a } from '../../../server/audio/ffmpeg.js';
import { startTestApp } from '../support/app.js';
import { FORMATS, decodedSeconds, makeSpeech } from '../support/audio.js';
import { makeLink, putNote, sha256Hex } from '../support/uploads.js';
import { box, fragmentedAac, repair, repeatLastMoof, topLevelBoxes } from './fragments.js';

/** A recording of WebKitGTK 2.50 on this machine (MediaRecorder, audio/mp4): moof, the same moof, mdat at its end. */
const WEBKIT_RECORDING = path.join(import.meta.dirname, 'fixtures', 'webkitgtk-repeated-moof.mp4');
/** What "its full length" allows: the bound. */
const TOLERANCE_S = 0.2;

let dir: string;
let clean: Buffer;
let webkit: Buffer;
let trueSeconds: number;

const file = async (name: string, bytes: Buffer) => {
  const at = path.join(dir, name);
  await writeFile(at, bytes);
  return at;
};

async function convertedSeconds(input: string): Promise<number> {
  const out = path.join(dir, `${randomUUID()}.m4a`);
  await convertToM4a(createReadStream(input), 'mp4', out, { timeoutMs: 30_000, maxSeconds: 75 });
  return decodedSeconds(out);
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-moof-'));
  const { wav } = await makeSpeech(dir);
  // 4.8 s in 1 s fragments: the last one holds 0.8 s, as a note stopped mid-second does.
  const cleanFile = path.join(dir, 'clean.mp4');
  await fragmentedAac(wav, 4.8, cleanFile);
  clean = await readFile(cleanFile);
  webkit = repeatLastMoof(clean);
  trueSeconds = await decodedSeconds(cleanFile);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('a fragmented MP4 whose last fragment header is written twice, as WebKit writes it', () => {
  it('should lose its last fragment when ffmpeg reads it unrepaired (the defect the repair is for)', async () => {
    expect(trueSeconds).toBeGreaterThan(4.7);
    expect(await decodedSeconds(await file('webkit-unrepaired.mp4', webkit))).toBeLessThan(trueSeconds - 0.5);
  });

  it('should convert to its full length, within 0.2 s of the recording', async () => {
    const seconds = await convertedSeconds(await file('webkit.mp4', webkit));
    console.log(`ffmpeg-made fragmented MP4 with its last moof repeated: ${trueSeconds.toFixed(3)} s recorded, ${seconds.toFixed(3)} s converted`);
    expect(Math.abs(seconds - trueSeconds)).toBeLessThan(TOLERANCE_S);
  });

  it("should convert WebKitGTK's own recording to its full length", async () => {
    const recording = await readFile(WEBKIT_RECORDING);
    const moofs = topLevelBoxes(recording).filter((b) => b.type === 'moof');
    const [first, second] = moofs.slice(-2);
    expect(recording.subarray(first!.start, first!.start + first!.size).equals(recording.subarray(second!.start, second!.start + second!.size))).toBe(true);
    // What it holds, measured by decoding it with the first copy cut out (not renamed, as the repair does).
    const cut = Buffer.concat([recording.subarray(0, first!.start), recording.subarray(second!.start)]);
    const recorded = await decodedSeconds(await file('webkit-cut.mp4', cut));
    const unrepaired = await decodedSeconds(WEBKIT_RECORDING);
    const converted = await convertedSeconds(WEBKIT_RECORDING);
    console.log(
      `WebKitGTK recording: ${recorded.toFixed(3)} s recorded, ${unrepaired.toFixed(3)} s as ffmpeg reads it unrepaired, ${converted.toFixed(3)} s converted`,
    );
    expect(unrepaired).toBeLessThan(recorded - 0.4);
    expect(Math.abs(converted - recorded)).toBeLessThan(TOLERANCE_S);
  });
});

describe('the fragment repair', () => {
  it('should rename the first copy free and move no byte', async () => {
    const { out, repaired } = await repair(webkit);
    expect(repaired).toBe(1);
    expect(out.length).toBe(webkit.length);
    const types = topLevelBoxes(out).map((b) => b.type);
    expect(types.slice(-4)).toEqual(['free', 'moof', 'mdat', 'mfra']);
    const changed = [...out.keys()].filter((i) => out[i] !== webkit[i]);
    const renamed = topLevelBoxes(out).find((b) => b.type === 'free')!;
    expect(changed.every((i) => i >= renamed.start + 4 && i < renamed.start + 8)).toBe(true);
  });

  it('should give the same bytes however the file arrives in chunks', async () => {
    const whole = (await repair(webkit)).out;
    for (const sizes of [[1], [3, 7, 13], [4096], [webkit.length - 1]]) expect((await repair(webkit, sizes)).out.equals(whole)).toBe(true);
  });

  it('should leave every recording without the defect byte for byte as it was', async () => {
    const speech = await readFile(path.join(dir, FORMATS['MP4/AAC'].file));
    for (const recording of [clean, speech]) expect(await repair(recording)).toEqual({ out: recording, repaired: 0 });
  });

  it('should leave adjacent fragment headers that differ, and repeated ones with data between them', async () => {
    const one = box('moof', Buffer.from('fragment 1'));
    const two = box('moof', Buffer.from('fragment 2'));
    const data = box('mdat', Buffer.from('aac'));
    for (const file of [Buffer.concat([one, two, data]), Buffer.concat([one, data, one, data])]) expect(await repair(file)).toEqual({ out: file, repaired: 0 });
  });

  it('should rename every copy but the last when one is written three times', async () => {
    const moof = box('moof', Buffer.from('fragment 6'));
    const { out, repaired } = await repair(Buffer.concat([moof, moof, moof, box('mdat')]));
    expect(repaired).toBe(2);
    expect(topLevelBoxes(out).map((b) => b.type)).toEqual(['free', 'free', 'moof', 'mdat']);
  });
});

describe('a WebKit note sent to the server', () => {
  it('should be stored byte for byte and converted to its full length', async () => {
    const t = await startTestApp('sqlite', { CONVERT_WORKER: 'on' });
    try {
      const token = await makeLink(t.app.repo);
      const noteId = randomUUID();
      expect((await putNote(t.app, { token, body: webkit, noteId, contentType: 'audio/mp4; codecs=mp4a' })).statusCode).toBe(201);
      const note = await vi.waitFor(
        async () => {
          const row = await t.app.repo.notes.find(noteId);
          if (row?.status === 'received') throw new Error('still waiting for conversion');
          return row!;
        },
        { timeout: 30_000, interval: 100 },
      );
      expect(note.status).toBe('converted');
      expect(note.sha256).toBe(sha256Hex(webkit));
      expect(sha256Hex(await readFile(path.join(t.backend.config.dataDir, 'blobs', note.originalKey)))).toBe(sha256Hex(webkit));
      const converted = await decodedSeconds(path.join(t.backend.config.dataDir, 'blobs', note.convertedKey!));
      expect(Math.abs(converted - trueSeconds)).toBeLessThan(TOLERANCE_S);
      expect(Math.abs(note.durationMs! / 1000 - trueSeconds)).toBeLessThan(TOLERANCE_S);
    } finally {
      await t.close();
    }
  });
});
