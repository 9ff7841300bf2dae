import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Fastify from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startConverter, type Converter } from '../../../server/audio/converter.js';
import { MediaToolError } from '../../../server/audio/ffmpeg.js';
import { NoteTooLongError } from '../../../server/audio/length.js';
import { decodedSeconds, FORMATS, makeSpeech } from '../support/audio.js';

const run = promisify(execFile);
const log = Fastify({ logger: { level: 'silent' } }).log;
let dir: string;
let speech: string;
let speechSeconds: number;
let long: string;
const opened: Converter[] = [];

/** What /proc says of a process (or of one of its threads, under task/): its parent, niceness (field 19) and scheduling policy (field 41). */
async function procStat(pid: number, thread?: string) {
  const text = await readFile(`/proc/${pid}${thread ? `/task/${thread}` : ''}/stat`, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(fields[1]), nice: Number(fields[16]), policy: Number(fields[38]) };
}

/** The niceness of every thread of a process: Linux keeps one per thread. */
async function threadNiceness(pid: number): Promise<number[]> {
  const threads = await readdir(`/proc/${pid}/task`);
  return Promise.all(threads.map(async (t) => (await procStat(pid, t)).nice));
}

async function command(pid: number): Promise<string> {
  return (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' ');
}

/** This test process's children that run `name`. */
async function childrenRunning(name: string, parent = process.pid): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const info = await procStat(pid).catch(() => undefined);
    if (info?.ppid === parent && (await command(pid)).includes(name)) found.push(pid);
  }
  return found;
}

const converterPids = () => childrenRunning('converter-process.ts');

/** Waits until this test's converter process runs; its pid. */
const converterStarted = () =>
  vi.waitFor(
    async () => {
      const [pid] = await converterPids();
      if (pid === undefined) throw new Error('no converter yet');
      return pid;
    },
    { timeout: 20_000, interval: 50 },
  );

/** Waits until the converter runs ffmpeg; the converter's pid and its ffmpeg's. */
const ffmpegStarted = () =>
  vi.waitFor(
    async () => {
      const [pid] = await converterPids();
      const tools = pid === undefined ? [] : await childrenRunning('ffmpeg', pid);
      if (tools.length === 0) throw new Error('ffmpeg has not started');
      return { pid: pid!, tools };
    },
    { timeout: 20_000, interval: 50 },
  );

/** The next note converts, in one new process in place of `gone`. */
async function expectConvertedByANewProcess(converter: Converter, gone: number): Promise<void> {
  const out = path.join(dir, `after-${gone}.m4a`);
  await converter.convert(speech, 'webm', out, { timeoutMs: 30_000, maxSeconds: 75 });
  expect((await stat(out)).size).toBeGreaterThan(1_000);
  const now = await converterPids();
  expect(now).toHaveLength(1);
  expect(now[0]).not.toBe(gone);
}

function open(): Converter {
  const converter = startConverter(log);
  opened.push(converter);
  return converter;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-converter-'));
  ({ seconds: speechSeconds } = await makeSpeech(dir));
  speech = path.join(dir, FORMATS['WebM/Opus'].file);
  // Ten minutes of noise: a conversion that is still running when the test stops it.
  long = path.join(dir, 'long.webm');
  await run('ffmpeg', ['-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', 'anoisesrc=d=600:r=48000', '-ac', '1', '-c:a', 'libopus', '-b:a', '16k', long]);
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('the converter process', () => {
  it('should convert a note in a process of its own, every thread of it at niceness 10, while the server keeps its priority', async () => {
    const converter = open();
    const out = path.join(dir, 'speech.m4a');
    const { durationMs } = await converter.convert(speech, 'webm', out, { timeoutMs: 30_000, maxSeconds: 75 });
    expect(Math.abs(durationMs / 1000 - speechSeconds)).toBeLessThan(0.3);
    expect(Math.abs((await decodedSeconds(out)) - speechSeconds)).toBeLessThan(0.3);
    const [pid] = await converterPids();
    expect(pid).toBeDefined();
    // nice adds 10 to the niceness it is started with (at most 19); a server already at 10 or more is left as it is.
    const own = os.getPriority();
    const niceness = await threadNiceness(pid!);
    expect(niceness.length).toBeGreaterThan(4); // V8's and libuv's threads, not only the main one
    expect(new Set(niceness)).toEqual(new Set([own >= 10 ? own : Math.min(19, own + 10)]));
    // The normal policy (0), not the idle class: a busy machine slows conversion but never stops it.
    expect(await procStat(pid!)).toMatchObject({ policy: 0 });
    expect(os.getPriority()).toBe(own);
  });

  it('should start its one process when prepared, before any note, and convert the first note in it', async () => {
    const converter = open();
    expect(await converterPids()).toEqual([]);
    converter.prepare();
    converter.prepare();
    const pid = await converterStarted();
    expect(await converterPids()).toEqual([pid]);
    const out = path.join(dir, 'prepared.m4a');
    await converter.convert(speech, 'webm', out, { timeoutMs: 30_000, maxSeconds: 75 });
    expect((await stat(out)).size).toBeGreaterThan(1_000);
    expect(await converterPids()).toEqual([pid]);
  });

  it('should refuse a note past the length limit and a file that is not audio with the errors the worker tells apart', async () => {
    const converter = open();
    const tooLong = converter.convert(speech, 'webm', path.join(dir, 'short-limit.m4a'), { timeoutMs: 30_000, maxSeconds: 1 });
    await expect(tooLong).rejects.toBeInstanceOf(NoteTooLongError);
    await expect(tooLong).rejects.toMatchObject({ maxSeconds: 1, message: new NoteTooLongError(1).message });
    const garbage = path.join(dir, 'garbage.webm');
    await writeFile(garbage, Buffer.alloc(20_000, 7));
    const refused = converter.convert(garbage, 'webm', path.join(dir, 'garbage.m4a'), { timeoutMs: 30_000, maxSeconds: 75 });
    await expect(refused).rejects.toBeInstanceOf(MediaToolError);
    await expect(refused).rejects.toMatchObject({ timedOut: false });
  });

  it('should stop ffmpeg and reject with the reason when the conversion is aborted', async () => {
    const converter = open();
    const controller = new AbortController();
    const out = path.join(dir, 'aborted.m4a');
    const attempt = converter.convert(long, 'webm', out, { timeoutMs: 60_000, maxSeconds: 700, signal: controller.signal });
    const { pid } = await ffmpegStarted();
    const reason = new Error('the lease was lost');
    controller.abort(reason);
    await expect(attempt).rejects.toBe(reason);
    await vi.waitFor(async () => expect(await childrenRunning('ffmpeg', pid)).toEqual([]), { timeout: 5_000, interval: 50 });
    // The process stays for the next note.
    expect(await converterPids()).toEqual([pid]);
  });

  it('should reject an aborted conversion with the reason at once, even while its process does not answer', async () => {
    const converter = open();
    const controller = new AbortController();
    const attempt = converter.convert(long, 'webm', path.join(dir, 'stopped.m4a'), { timeoutMs: 60_000, maxSeconds: 700, signal: controller.signal });
    const pid = await converterStarted();
    process.kill(pid, 'SIGSTOP');
    try {
      const reason = new Error('the lease was lost');
      controller.abort(reason);
      await expect(attempt).rejects.toBe(reason);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
  });

  it("should fail a conversion its process does not answer within both runs' limits, and replace that process", async () => {
    const converter = open();
    // A first note starts the process; then it stops answering.
    await converter.convert(speech, 'webm', path.join(dir, 'first.m4a'), { timeoutMs: 30_000, maxSeconds: 75 });
    const pid = await converterStarted();
    process.kill(pid, 'SIGSTOP');
    const started = Date.now();
    const stuck = converter.convert(speech, 'webm', path.join(dir, 'stuck.m4a'), { timeoutMs: 100, maxSeconds: 75 });
    await expect(stuck).rejects.toBeInstanceOf(MediaToolError);
    await expect(stuck).rejects.toMatchObject({ timedOut: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(2 * 100);
    await expectConvertedByANewProcess(converter, pid);
  }, 30_000);

  it('should fail the conversions in hand when its process dies, and convert the next note in a new one', async () => {
    const converter = open();
    const attempt = converter.convert(long, 'webm', path.join(dir, 'killed.m4a'), { timeoutMs: 60_000, maxSeconds: 700 });
    const pid = await converterStarted();
    process.kill(pid, 'SIGKILL');
    await expect(attempt).rejects.toThrow(/the converter process ended \(SIGKILL\)/);
    await expectConvertedByANewProcess(converter, pid);
  });

  it('should leave no process behind once closed, and stop a conversion still running', async () => {
    const converter = open();
    const attempt = converter.convert(long, 'webm', path.join(dir, 'closed.m4a'), { timeoutMs: 60_000, maxSeconds: 700 });
    const { tools } = await ffmpegStarted();
    await converter.close();
    await expect(attempt).rejects.toThrow(/the converter process ended/);
    expect(await converterPids()).toEqual([]);
    // Its ffmpeg does not run on without it.
    await vi.waitFor(
      async () => {
        for (const pid of tools) expect(await command(pid)).not.toContain('ffmpeg');
      },
      { timeout: 5_000, interval: 50 },
    );
  });
});
