/**
 * Runs ffmpeg and ffprobe as child processes with a time limit; a failure becomes a one-line
 * reason, never a crash. A note is fed on stdin with the demuxer named from the sniffed container
 * and `pipe` as the only protocol, so nothing inside the media can make ffmpeg open another file
 * (an HLS playlist, an ffconcat list or a QuickTime external reference all need `file`).
 */
import { spawn } from 'node:child_process';
import { pipeline, type Readable } from 'node:stream';
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
  /** Called with each line of stdout instead of collecting it (ffprobe can print a line per packet). */
  onLine?: (line: string) => void;
  /** Aborting kills the tool and rejects with the signal's reason (the worker lost its lease on the job). */
  signal?: AbortSignal;
}

/** Runs a tool, resolving with its stdout; rejects with the last meaningful stderr line. */
export function runTool(command: string, args: string[], timeoutMs: number, io: ToolRun = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: [io.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let partial = '';
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
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      if (!io.onLine) return void (stdout += d);
      const lines = (partial + d).split('\n');
      partial = lines.pop()!;
      lines.forEach(io.onLine);
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
      if (partial && io.onLine) io.onLine(partial);
      if (timedOut) return reject(new MediaToolError(`${command} took longer than ${timeoutMs} ms and was stopped`, true));
      if (code === 0) return resolve(stdout);
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
 * How many seconds of audio the recording holds, reading packet timestamps only (no decoding)
 * and never more than `readSeconds` of them: two hours of Opus DTX silence is judged as fast as
 * a short note. The answer is the span from the first packet to the end of the last one read, so
 * a result at or above `readSeconds` means "at least that long".
 */
export async function probeAudioSeconds(input: Readable, container: AudioContainer, readSeconds: number, timeoutMs: number): Promise<number> {
  let first = Infinity;
  let end = -Infinity;
  await runTool('ffprobe', [
    '-v', 'error', ...pipeInput(container),
    '-select_streams', 'a:0', '-read_intervals', `%+${readSeconds}`,
    '-show_entries', 'packet=pts_time,duration_time', '-of', 'csv=p=0',
  ], timeoutMs, {
    stdin: feed(input, container),
    onLine(line) {
      const [pts, duration] = line.split(',').map(Number);
      if (pts === undefined || !Number.isFinite(pts)) return;
      first = Math.min(first, pts);
      end = Math.max(end, pts + (Number.isFinite(duration) ? duration! : 0));
    },
  });
  if (!Number.isFinite(first)) throw new MediaToolError('no audio was found in the recording');
  return end - first;
}

/**
 * The recording -> AAC in M4A, mono, loudness-normalised to about -16 LUFS (EBU R128, single
 * pass), at most `maxSeconds` long whatever the timestamps say, with the index at the front so
 * playback can start before the file is complete.
 */
export async function convertToM4a(
  input: Readable, container: AudioContainer, output: string, opts: { timeoutMs: number; maxSeconds: number; signal?: AbortSignal },
): Promise<void> {
  await runTool('ffmpeg', [
    '-nostdin', '-hide_banner', '-loglevel', 'error', '-y',
    ...pipeInput(container),
    '-map', '0:a:0', '-vn', '-ac', '1', '-t', String(opts.maxSeconds),
    '-af', 'loudnorm=I=-16:TP=-1.5:LRA=11',
    // loudnorm upsamples to 192 kHz internally; bring it back to a rate AAC players expect.
    '-ar', '48000',
    '-c:a', 'aac', '-b:a', '64k',
    '-movflags', '+faststart',
    '-f', 'mp4', output,
  ], opts.timeoutMs, { stdin: feed(input, container), signal: opts.signal });
}

/** Duration in milliseconds of a file we wrote ourselves (the converted M4A), as ffprobe reads it from the container. */
export async function probeDurationMs(file: string, timeoutMs: number): Promise<number> {
  const out = await runTool('ffprobe', [
    '-v', 'error', '-protocol_whitelist', 'file', '-f', 'mov',
    '-show_entries', 'format=duration', '-of', 'csv=p=0', file,
  ], timeoutMs);
  const seconds = Number(out.trim());
  if (!Number.isFinite(seconds) || seconds <= 0) throw new MediaToolError('the converted file has no duration');
  return Math.round(seconds * 1000);
}
