/**
 * Conversion capacity against its floor: the CPU our conversion spends per minute of
 * speech (the converter process, server/audio/converter.ts, and its two ffmpeg runs: loudness
 * measure, then encode) against ffmpeg alone doing the same decode, filters and encode in one run.
 * CPU seconds, not wall time: the bench shares its 2 cores with whatever else runs, and CPU time
 * is what a core gives. Notes a second per core follows from the same figure.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Fastify from 'fastify';
import { startConverter } from '../../server/audio/converter.js';
import { LIMIT_LINEAR } from '../../server/audio/loudness.js';
import { friendNote } from '../../stand-ins/friend.js';
import { childRunning, cpuSecondsWithReaped } from '../load/procStat.js';
import type { Section } from '../report.js';
import type { BenchContext } from './context.js';
import { noteLengths } from '../../stand-ins/venueSchedules.js';

const run = promisify(execFile);

/** This process's converter process, started by startConverter. */
async function converterPid(): Promise<number> {
  const pid = await childRunning(process.pid, 'converter-process');
  if (pid === undefined) throw new Error('capacity: no converter process');
  return pid;
}

/**
 * The floor: one ffmpeg run that decodes the note, measures it (ebur128), resamples, applies a gain
 * and the limiter and encodes the same AAC, as our two runs do between them. Its CPU from ffmpeg's
 * own -benchmark line (getrusage of the whole run, its start included).
 */
async function floorSeconds(input: string, output: string): Promise<number> {
  const { stderr } = await run('ffmpeg', [
    '-nostdin',
    '-hide_banner',
    '-nostats',
    '-benchmark',
    '-y',
    '-i',
    input,
    '-map',
    '0:a:0',
    '-vn',
    '-ac',
    '1',
    '-af',
    `ebur128,aresample=16000,volume=3dB,alimiter=limit=${LIMIT_LINEAR}:level=false:latency=true`,
    '-c:a',
    'aac',
    '-b:a',
    '24k',
    '-movflags',
    '+faststart',
    '-f',
    'mp4',
    output,
  ]);
  const m = /bench: utime=([\d.]+)s stime=([\d.]+)s/.exec(stderr);
  if (!m) throw new Error('capacity: ffmpeg printed no -benchmark line');
  return Number(m[1]) + Number(m[2]);
}

export async function capacitySection(ctx: BenchContext): Promise<Section> {
  const lengths = ctx.smoke ? [10, 30] : noteLengths(24, 31);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-capacity-'));
  const converter = startConverter(Fastify({ logger: { level: 'silent' } }).log);
  try {
    const files = new Map<number, string>();
    for (const s of new Set(lengths)) {
      const file = path.join(dir, `note-${s}.webm`);
      await writeFile(file, (await friendNote(s)).audio);
      files.set(s, file);
    }
    // A warm-up: the process's start and its modules are paid once a server, not per note.
    await converter.convert(files.get(lengths[0]!)!, 'webm', path.join(dir, 'warm.m4a'), { timeoutMs: 120_000, maxSeconds: 60 });
    const pid = await converterPid();
    const before = await cpuSecondsWithReaped(pid);
    const wallStarted = Date.now();
    for (const [i, s] of lengths.entries()) {
      await converter.convert(files.get(s)!, 'webm', path.join(dir, `ours-${i}.m4a`), { timeoutMs: 120_000, maxSeconds: 60 });
    }
    const oursWall = (Date.now() - wallStarted) / 1000;
    const ours = (await cpuSecondsWithReaped(pid)) - before;
    let floor = 0;
    for (const [i, s] of lengths.entries()) floor += await floorSeconds(files.get(s)!, path.join(dir, `floor-${i}.m4a`));
    const speechMinutes = lengths.reduce((a, b) => a + b, 0) / 60;
    const perMinute = { ours: ours / speechMinutes, floor: floor / speechMinutes };
    const perNote = { ours: ours / lengths.length, floor: floor / lengths.length };
    const meanSeconds = (speechMinutes * 60) / lengths.length;
    const ratio = perMinute.ours / perMinute.floor;
    ctx.log(`capacity: ${perMinute.ours.toFixed(2)} CPU s per minute of speech, floor ${perMinute.floor.toFixed(2)} (${ratio.toFixed(2)}x)`);
    return {
      id: 'capacity',
      title: `Conversion capacity against its floor: ${lengths.length} notes of 10-60 s speech (${(speechMinutes).toFixed(1)} min), one at a time`,
      baseline: 'ffmpeg alone, one run per note doing the same decode, loudness meter, filters and AAC encode (the floor)',
      rows: [
        {
          metric: 'conversion CPU per minute of speech',
          ours: perMinute.ours,
          baseline: perMinute.floor,
          unit: 's',
          digits: 2,
          aim: { text: '≤ 1.5x the floor', met: ratio <= 1.5 },
        },
        { metric: `conversion CPU per note (mean ${meanSeconds.toFixed(0)} s)`, ours: perNote.ours, baseline: perNote.floor, unit: 's', digits: 2 },
        {
          metric: `notes converted a second per core (mean ${meanSeconds.toFixed(0)} s)`,
          ours: 1 / perNote.ours,
          baseline: 1 / perNote.floor,
          unit: '/s',
          digits: 2,
        },
      ],
      chart: {
        kind: 'bars',
        title: 'Conversion CPU per minute of speech',
        unit: 's',
        series: ['floor (ffmpeg alone)', 'ours'],
        groups: [{ label: 'CPU s / min of speech', values: [perMinute.floor, perMinute.ours] }],
      },
      notes: [
        `Ours: CPU seconds (utime+stime of the converter process and of the ffmpeg runs it waited for, /proc/<pid>/stat) over the ${lengths.length} conversions, after one warm-up that pays the process's start; ` +
          `${oursWall.toFixed(0)} s of wall time for them on this shared machine (load average ${os.loadavg()[0]!.toFixed(1)} at the end), which is why the figures are CPU time.`,
        'Floor: ffmpeg -benchmark (getrusage of the whole run, its start included), reading the file itself; the same filters as our two runs between them, so the ratio is what splitting into two runs, the converter process and the pipe cost.',
        `Notes a second per core: one over the CPU per note; a 2-core server converting at CONVERT_CONCURRENCY=2 has at most twice that, less what its requests take.`,
      ],
    };
  } finally {
    await converter.close();
    await rm(dir, { recursive: true, force: true });
  }
}
