/**
 * Conversions running on a server whose one disk (a real small file system under both the data
 * folder and the scratch folder, TMPDIR) has room for a note's copy, its decoded samples and half
 * its M4A: no conversion can finish, and two at once run out wherever they are (their samples,
 * ffmpeg's M4A, the database). None is marked failed, nothing counts toward giving a note up, and
 * each is converted whole once space is back. Which words ffmpeg used varies with the timing (the
 * converter's own test pins each, tests/server/audio/converter-disk-full.test.ts). Once,
 * ffmpeg's words ("Conversion failed!", "Error initializing output stream 0:0") made a note
 * unplayable, and a disk that filled during ffmpeg's last write gave an M4A cut short, stored as
 * converted.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startConverter, type Converter } from '../../../server/audio/converter.js';
import { MediaToolError } from '../../../server/audio/ffmpeg.js';
import { StorageFault, type StorageFaultKind } from '../../../server/storage/faults.js';
import { startConversionWorker, type ConversionWorker } from '../../../server/conversion/worker.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { decodedSeconds, makeSpeech } from '../support/audio.js';
import { BACKENDS } from '../support/backends.js';
import { mountSmallDisk, type SmallDisk } from '../support/small-disk.js';
import { makeLink, putNote } from '../support/uploads.js';

const NOTES = 3;
const PAGE = 4096;
const pages = (bytes: number) => Math.ceil(bytes / PAGE);
/** The first pass's PCM: 16 kHz mono 32-bit float (server/audio/ffmpeg.ts). */
const PCM_BYTES_PER_MS = 64;
const quiet = Fastify({ logger: { level: 'silent' } }).log;

let speechDir: string;
let speech: Buffer;
let speechSeconds: number;

beforeAll(async () => {
  speechDir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-audio-'));
  ({ seconds: speechSeconds } = await makeSpeech(speechDir));
  speech = await readFile(path.join(speechDir, 'speech.webm'));
});
afterAll(() => rm(speechDir, { recursive: true, force: true }));

describe.each(BACKENDS)('conversions while the disk under the data and scratch folders is full, on %s', (kind) => {
  let disk: SmallDisk;
  let t: TestApp;
  let running: { worker: ConversionWorker; converter: Converter } | undefined;
  const tmpdir = process.env.TMPDIR;

  /** A worker converting in scratch folders on the small disk, two notes at once, its converter's every failure noted. */
  function startWorker(events: { faults: StorageFaultKind[]; failed: string[]; converterSaid: unknown[] }) {
    process.env.TMPDIR = path.join(disk.dir, 'tmp');
    const real = startConverter(quiet);
    const converter: Converter = {
      ...real,
      async convert(...args) {
        try {
          return await real.convert(...args);
        } catch (err) {
          events.converterSaid.push(err);
          throw err;
        }
      },
    };
    const worker = startConversionWorker({
      repo: t.app.repo,
      blobs: t.app.blobs,
      log: quiet,
      ffmpegTimeoutMs: 30_000,
      maxNoteSeconds: 75,
      concurrency: 2,
      converter,
      // Time compressed: a job whose hand-back the full database refused waits out its lease before it is taken again.
      pollMs: 50,
      storageFaultPauseMs: 50,
      leaseMs: 2_000,
      events: { converted: () => {}, failed: (why) => events.failed.push(why), storageFault: (fault) => events.faults.push(fault) },
    });
    running = { worker, converter: real };
  }
  async function stopWorker() {
    await running?.worker.stop();
    await running?.converter.close();
    running = undefined;
    if (tmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmpdir;
  }

  const converted = (noteId: string) =>
    vi.waitFor(
      async () => {
        const note = await t.app.repo.notes.find(noteId);
        if (note?.status !== 'converted') throw new Error(`note is ${note?.status}`);
        return note;
      },
      { timeout: 60_000, interval: 100 },
    );

  beforeAll(async () => {
    disk = await mountSmallDisk(8);
    await mkdir(path.join(disk.dir, 'tmp'));
    t = await startTestApp(kind, { DATA_DIR: path.join(disk.dir, 'data'), READY_MIN_FREE_MB: '0' });
  });
  afterAll(async () => {
    await stopWorker();
    await t?.close();
    await disk?.remove();
  });

  it('should be tried again later, none failed, and each converted whole once space is back', async () => {
    const token = await makeLink(t.app.repo);
    // One note converted with room tells what a conversion needs: its copy, its samples, its M4A.
    const first = randomUUID();
    expect((await putNote(t.app, { token, noteId: first, body: speech })).statusCode).toBe(201);
    const events = { faults: [] as StorageFaultKind[], failed: [] as string[], converterSaid: [] as unknown[] };
    startWorker(events);
    const sized = await converted(first);
    await stopWorker();
    const m4aBytes = (await stat(path.join(disk.dir, 'data', 'blobs', sized.convertedKey!))).size;
    // Room for a note's copy and samples and half its M4A: no conversion can finish, two at once fill it where they are.
    const room = pages(speech.length) + pages(sized.durationMs! * PCM_BYTES_PER_MS) + Math.floor(pages(m4aBytes) / 2);

    const ids = Array.from({ length: NOTES }, () => randomUUID());
    for (const noteId of ids) expect((await putNote(t.app, { token, noteId, body: speech })).statusCode).toBe(201);
    await disk.fill(room * PAGE);
    startWorker(events);
    // Each note would have been given up after MAX_ATTEMPTS (3) counted attempts; or marked unplayable at once.
    await vi.waitFor(
      () => {
        if (events.failed.length === 0 && events.converterSaid.length < 2 * NOTES) throw new Error(`the converter met ${events.converterSaid.length} failures`);
      },
      { timeout: 60_000, interval: 50 },
    );

    console.log(
      `on ${kind}, the converter met:\n${[...new Set(events.converterSaid.map((err) => String((err as Error).message).replaceAll(disk.dir, '<disk>')))].join('\n')}`,
    );
    // Never the note's fault; the disk's, each time it was the disk (a lease the full database could not renew is lost instead).
    expect(events.converterSaid.filter((err) => err instanceof MediaToolError)).toEqual([]);
    expect(events.converterSaid.filter((err) => err instanceof StorageFault)).not.toEqual([]);
    expect(events.failed).toEqual([]);
    for (const noteId of ids) expect((await t.app.repo.notes.find(noteId))?.status).toBe('received');

    await disk.free();
    for (const noteId of ids) {
      const note = await converted(noteId);
      expect(Math.abs((await decodedSeconds(path.join(disk.dir, 'data', 'blobs', note.convertedKey!))) - speechSeconds)).toBeLessThan(0.2);
    }
    expect(events.failed).toEqual([]);
  });
});
