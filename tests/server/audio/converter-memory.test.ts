/**
 * The converter process's memory is a limit, not a speed: a server converts CONVERT_CONCURRENCY
 * notes at once (2 as shipped) in one converter process, and with the longest notes that process
 * must stay within 100 MB resident. Its peak is the kernel's own high-water mark
 * (VmHWM), read once both conversions are done, so no sample can miss it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConverter } from '../../../server/audio/converter.js';
import { makeSpeech } from '../support/audio.js';

const MAX_SECONDS = 60;
const LIMIT_MB = 100;
const log = Fastify({ logger: { level: 'silent' } }).log;
let dir: string;
let longest: string;

/** This test process's converter process (started by startConverter), found by its parent and command line. */
async function converterPid(): Promise<number> {
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid !== process.pid) continue;
    if ((await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).includes('converter-process')) return Number(entry);
  }
  throw new Error('no converter process');
}

/** A process's peak resident memory so far (VmHWM), in MB. */
async function peakResidentMB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmHWM:\s+(\d+)\s+kB/m.exec(status)![1]) / 1024;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-converter-memory-'));
  longest = path.join(dir, 'longest.webm');
  // The longest note a friend may send: speech looped to 60 s, Opus in WebM as phones record it.
  await promisify(execFile)('ffmpeg', [
    '-nostdin',
    '-loglevel',
    'error',
    '-stream_loop',
    '-1',
    '-i',
    (await makeSpeech(dir)).wav,
    '-t',
    String(MAX_SECONDS),
    '-c:a',
    'libopus',
    '-b:a',
    '24k',
    '-ac',
    '1',
    '-f',
    'webm',
    longest,
  ]);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('the converter process memory', () => {
  it(`should stay under ${LIMIT_MB} MB resident while converting two of the longest notes at once`, async () => {
    const converter = startConverter(log);
    try {
      const outputs = [0, 1].map((i) => path.join(dir, `note-${i}.m4a`));
      const results = await Promise.all(outputs.map((out) => converter.convert(longest, 'webm', out, { timeoutMs: 60_000, maxSeconds: MAX_SECONDS })));
      for (const { durationMs } of results) expect(Math.abs(durationMs - MAX_SECONDS * 1000)).toBeLessThan(300);
      for (const out of outputs) expect((await stat(out)).size).toBeGreaterThan(50_000);
      expect(await peakResidentMB(await converterPid())).toBeLessThan(LIMIT_MB);
    } finally {
      await converter.close();
    }
  }, 180_000);
});
