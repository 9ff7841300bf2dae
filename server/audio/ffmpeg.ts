/**
 * Runs ffmpeg as a child process with a time limit, at background priority; a failure becomes a
 * one-line reason, never a crash. A note is fed on stdin with the demuxer named from the sniffed container
 * and `pipe` as the only protocol, so nothing inside the media can make ffmpeg open another file
 * (an HLS playlist, an ffconcat list or a QuickTime external reference all need `file`).
 */
import { spawn } from 'node:child_process';
import { rm, stat } from 'node:fs/promises';
import { pipeline, Readable } from 'node:stream';
import { backgroundCommand, lowerPriority } from './background.js';
import { NoteTooLongError } from './length.js';
import { gainToTarget, LIMIT_LINEAR, parseIntegratedLufs } from './loudness.js';
import { Mp4FragmentRepair } from './mp4-repair.js';
import { DEMUXER, type AudioContainer } from './sniff.js';

export class MediaToolError extends Error {
  constructor(message: string, readonly timedOut = false) {
    super(message);
    this.name = 'MediaToolError';
  }
}

interface ToolRun {
  /** Piped to the tool's stdin; destroyed when the tool exits, whether it read it all or not. */
  stdin?: Readable;
  /** Aborting kills the tool and rejects with the signal's reason (the worker lost its lease on the job). */
  signal?: AbortSignal;
  /** The most stdout may hold (default 64 KB); past it the tool is killed and the run fails. */
  maxStdoutBytes?: number;
}

interface ToolOutput {
  stdout: Buffer;
  /** The last 4,000 characters: ffmpeg's reason for failing, or a filter's summary, is at the end. */
  stderrTail: string;
}

/** Runs a tool at background priority (./background.ts), resolving with its output; rejects with the last meaningful stderr line. */
export function runTool(command: string, args: string[], timeoutMs: number, io: ToolRun = {}): Promise<ToolOutput> {
  return new Promise((resolve, reject) => {
    const { program, args: line, lowerAfterStart } = backgroundCommand(command, args);
    const child = spawn(program, line, { stdio: [io.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    if (lowerAfterStart) lowerPriority(child.pid);
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    const maxStdoutBytes = io.maxStdoutBytes ?? 64 * 1024;
    let overflowed = false;
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    const abort = () => child.kill('SIGKILL');
    io.signal?.addEventListener('abort', abort, { once: true });
    if (io.signal?.aborted) abort();
    if (io.stdin && child.stdin) {
      // The tool may stop reading early (enough seconds probed, or bad data): that is not our error.
      child.stdin.on('error', () => {});
      io.stdin.on('error', () => child.stdin?.destroy());
      io.stdin.pipe(child.stdin);
    }
    child.stdout!.on('data', (d: Buffer) => {
      stdoutBytes += d.length;
      if (stdoutBytes > maxStdoutBytes) {
        overflowed = true;
        child.kill('SIGKILL');
      } else stdout.push(d);
    });
    // Keep only the tail: ffmpeg's reason for failing is at the end.
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
    child.on('error', (err) => {
      clearTimeout(timer);
      io.stdin?.destroy();
      reject(new MediaToolError(`${command} could not be started: ${err.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      io.signal?.removeEventListener('abort', abort);
      io.stdin?.unpipe();
      io.stdin?.destroy();
      if (io.signal?.aborted) return reject(io.signal.reason);
      if (timedOut) return reject(new MediaToolError(`${command} took longer than ${timeoutMs} ms and was stopped`, true));
      if (overflowed) return reject(new MediaToolError(`${command} wrote more than ${maxStdoutBytes} bytes and was stopped`));
      if (code === 0) return resolve({ stdout: Buffer.concat(stdout), stderrTail: stderr });
      const lines = stderr.split('\n').map((l) => l.trim()).filter(Boolean);
      reject(new MediaToolError(lines.at(-1) ?? `${command} exited with code ${code}`));
    });
  });
}

/** The input half of every command line: the one stream on stdin, read by the named demuxer only. */
const pipeInput = (container: AudioContainer) => ['-protocol_whitelist', 'pipe', '-f', DEMUXER[container], '-i', 'pipe:0'];

/**
 * The note as ffmpeg is given it: an MP4 passes through the repair of a repeated fragment header
 * (mp4-repair.ts), which would otherwise cost a WebKit note its last second. Ending the tool's
 * stdin ends the file's stream too.
 */
const feed = (input: Readable, container: AudioContainer): Readable =>
  container === 'mp4' ? pipeline(input, new Mp4FragmentRepair(), () => {}) : input;

/**
 * Decoded notes are mono at 16 kHz: a voice up to 8 kHz, the band HD Voice calls carry, which is
 * all that AAC at 24 kbit/s keeps anyway; at 24 kHz the same encoder spent 34 kbit/s and 25 % more CPU.
 */
const SAMPLE_RATE = 16_000;
const PCM_BYTES_PER_SECOND = SAMPLE_RATE * 4; // 32-bit float, one channel

/**
 * The first pass: decodes the note (at most `readSeconds` of it) to raw PCM in the file `pcm`,
 * measuring its integrated loudness (EBU R128) on the way. The PCM goes from this ffmpeg to the
 * next through that file (beside the output, in the job's scratch directory), never through this
 * process: held here, the longest note's 3.8 MB came out as 64 kB chunks, was joined (twice the
 * bytes) and fed back, and the converter process peaked at 100-165 MB resident with two notes at
 * once; now its memory does not depend on a note's length. Returns the seconds decoded (from the
 * file's size) and the loudness in LUFS (null for a note too quiet for the meter's gate: silence).
 */
async function decodeMeasured(input: Readable, container: AudioContainer, pcm: string, readSeconds: number, timeoutMs: number, signal?: AbortSignal) {
  const { stderrTail } = await runTool('ffmpeg', [
    '-nostdin', '-hide_banner', '-nostats', '-loglevel', 'info', '-y',
    ...pipeInput(container),
    '-map', '0:a:0', '-vn', '-ac', '1', '-t', String(readSeconds),
    // Measured at the recording's own rate, then resampled: the meter's K-weighting is made for it.
    '-af', `ebur128=framelog=verbose,aresample=${SAMPLE_RATE}`,
    // -t bounds what is written: at most readSeconds of PCM (7 MB for a note a second too long).
    '-f', 'f32le', pcm,
  ], timeoutMs, { stdin: feed(input, container), signal });
  // ffmpeg writes no file when nothing was decoded: that is a note of no seconds.
  const { size } = await stat(pcm).catch(() => ({ size: 0 }));
  return { seconds: size / PCM_BYTES_PER_SECOND, lufs: parseIntegratedLufs(stderrTail) };
}

/** The second pass: the PCM file, brought to the loudness target and limited below clipping, encoded as AAC in M4A. */
async function encodeM4a(pcm: string, output: string, gainDb: number, timeoutMs: number, signal?: AbortSignal) {
  await runTool('ffmpeg', [
    '-nostdin', '-hide_banner', '-loglevel', 'error', '-y',
    // Our own file of raw samples, written by the first pass: read as such (no demuxer guesses, no other protocol).
    '-protocol_whitelist', 'file', '-f', 'f32le', '-ar', String(SAMPLE_RATE), '-ac', '1', '-i', pcm,
    '-af', `volume=${gainDb.toFixed(2)}dB,alimiter=limit=${LIMIT_LINEAR}:level=false:latency=true`,
    // AAC-LC at 24 kbit/s (ffmpeg's encoder spends about 25 on speech): a 60 s note is about 190 KB,
    // 3.8 s on the race-day bench's 400 kbit/s cell where 35 kbit/s took 5.2 s.
    '-c:a', 'aac', '-b:a', '24k',
    '-movflags', '+faststart',
    '-f', 'mp4', output,
  ], timeoutMs, { signal });
}

/**
 * The recording -> AAC in M4A, mono, 16 kHz, normalised to about -16 LUFS (EBU R128, measured over
 * the whole note, then one gain for all of it and a limiter for the peaks: server/audio/loudness.ts),
 * with the index at the front so playback can start before the file is complete. Two ffmpeg runs,
 * no more: each one costs ~70 ms of CPU just to start on Debian's build, and a race morning brings
 * 5 notes a second.
 *
 * A note longer than `maxSeconds` is refused (NoteTooLongError), not cut, and costs at most that
 * many seconds of decoding whatever its timestamps say (server/audio/length.ts). Resolves with
 * the note's duration, counted in decoded samples.
 */
export async function convertToM4a(
  input: Readable, container: AudioContainer, output: string, opts: { timeoutMs: number; maxSeconds: number; signal?: AbortSignal },
): Promise<{ durationMs: number }> {
  const pcm = `${output}.f32`;
  try {
    const { seconds, lufs } = await decodeMeasured(input, container, pcm, opts.maxSeconds + 1, opts.timeoutMs, opts.signal);
    if (seconds > opts.maxSeconds) throw new NoteTooLongError(opts.maxSeconds);
    if (seconds === 0) throw new MediaToolError('no audio was found in the recording');
    opts.signal?.throwIfAborted();
    await encodeM4a(pcm, output, gainToTarget(lufs), opts.timeoutMs, opts.signal);
    return { durationMs: Math.round(seconds * 1000) };
  } finally {
    await rm(pcm, { force: true });
  }
}
