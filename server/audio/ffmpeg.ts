/**
 * Runs ffmpeg as a child process with a time limit, at background priority; a failure becomes a
 * one-line reason, never a crash. A MediaToolError says the note is at fault, never the disk: the
 * first pass only decodes (this process writes its output), and a second pass that fails is run
 * again writing nothing before the note is blamed (ffmpeg's words for a full disk vary, and are
 * sometimes only "Conversion failed!"). A note is fed on stdin with the demuxer named from the sniffed container
 * and `pipe` as the only protocol, so nothing inside the media can make ffmpeg open another file
 * (an HLS playlist, an ffconcat list or a QuickTime external reference all need `file`).
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { pipeline, type Readable, type Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { StorageFault } from '../storage/faults.js';
import { backgroundCommand, lowerPriority } from './background.js';
import { NoteTooLongError } from './length.js';
import { gainToTarget, LIMIT_LINEAR, parseIntegratedLufs } from './loudness.js';
import { Mp4FragmentRepair } from './mp4-repair.js';
import { DEMUXER, type AudioContainer } from './sniff.js';

/**
 * The tool failed on the note it was given, never for the disk or the machine: what it said, as one
 * line. `timedOut`: it ran past its time limit instead, which the worker counts as an attempt.
 */
export class MediaToolError extends Error {
  constructor(
    message: string,
    readonly timedOut = false,
  ) {
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
  /**
   * Where stdout is streamed instead of kept (a file of ours): the tool then writes only to a
   * pipe, so a write that fails (a full disk) is this process's error, with its code. Written by
   * the tool itself, such a failure came out as "Conversion failed!", and as nothing at all
   * (exit 0, the file cut short) when the disk filled during its last write.
   */
  stdoutTo?: Writable;
}

interface ToolOutput {
  stdout: Buffer;
  /** The last 4,000 characters: ffmpeg's reason for failing, or a filter's summary, is at the end. */
  stderrTail: string;
}

/**
 * Runs a tool at background priority (./background.ts), resolving with its output. Rejects with a
 * MediaToolError (the last meaningful stderr line) when the tool ran and failed; with the error
 * itself when this side failed (reading stdin, writing stdoutTo: a file system's error, with its
 * code); with a plain Error when the tool could not start or was killed by someone else.
 */
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
    /** Reading the input or writing the output failed here: what the tool then says is beside the point. */
    let ours: { err: unknown } | undefined;
    const stopFor = (err: unknown) => {
      ours ??= { err };
      child.kill('SIGKILL');
      // What the tool wrote before it died is read and dropped: a stdout left paused never closes.
      child.stdout!.resume();
    };
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
      // The note could not be read (its copy's disk): a tool fed half of it might even succeed.
      io.stdin.on('error', (err) => {
        child.stdin?.destroy();
        stopFor(err);
      });
      io.stdin.pipe(child.stdin);
    }
    const sink = io.stdoutTo;
    const sinkDone =
      sink &&
      finished(sink).then(
        () => undefined,
        (err: unknown) => err,
      );
    sink?.on('error', stopFor).on('drain', () => child.stdout!.resume());
    child.stdout!.on('data', (d: Buffer) => {
      stdoutBytes += d.length;
      if (ours) return;
      if (stdoutBytes > maxStdoutBytes) {
        overflowed = true;
        child.kill('SIGKILL');
      } else if (!sink) stdout.push(d);
      else if (!sink.write(d)) child.stdout!.pause();
    });
    // Keep only the tail: ffmpeg's reason for failing is at the end.
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
    child.on('error', (err) => {
      clearTimeout(timer);
      io.stdin?.destroy();
      sink?.destroy();
      reject(Object.assign(new Error(`${command} could not be started: ${err.message}`), { code: (err as NodeJS.ErrnoException).code }));
    });
    child.on('close', (code, killedBy) => {
      clearTimeout(timer);
      io.signal?.removeEventListener('abort', abort);
      io.stdin?.unpipe();
      io.stdin?.destroy();
      // Everything the tool wrote is in the file (or the file failed) before the run is judged.
      if (sink && !sink.destroyed) sink.end();
      void Promise.resolve(sinkDone).then((sinkError) => {
        if (sinkError) ours ??= { err: sinkError };
        if (io.signal?.aborted) return reject(io.signal.reason);
        if (ours) return reject(ours.err);
        if (timedOut) return reject(new MediaToolError(`${command} took longer than ${timeoutMs} ms and was stopped`, true));
        if (overflowed) return reject(new MediaToolError(`${command} wrote more than ${maxStdoutBytes} bytes and was stopped`));
        if (code === 0) return resolve({ stdout: Buffer.concat(stdout), stderrTail: stderr });
        // Killed by someone else (the kernel out of memory, an operator): no word on the note.
        if (code === null) return reject(new Error(`${command} was stopped by ${killedBy}`));
        // nice's own answer: the tool could not be run (126) or found (127).
        if (code === 126 || code === 127) return reject(new Error(`${command} could not be started: ${stderr.trim().split('\n').at(-1)}`));
        const lines = stderr
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean);
        reject(new MediaToolError(lines.at(-1) ?? `${command} exited with code ${code}`));
      });
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
const feed = (input: Readable, container: AudioContainer): Readable => (container === 'mp4' ? pipeline(input, new Mp4FragmentRepair(), () => {}) : input);

/**
 * Decoded notes are mono at 16 kHz: a voice up to 8 kHz, the band HD Voice calls carry, which is
 * all that AAC at 24 kbit/s keeps anyway; at 24 kHz the same encoder spent 34 kbit/s and 25 % more CPU.
 */
const SAMPLE_RATE = 16_000;
const PCM_BYTES_PER_SECOND = SAMPLE_RATE * 4; // 32-bit float, one channel

/**
 * The first pass: decodes the note (at most `readSeconds` of it) to raw PCM in the file `pcm`,
 * measuring its integrated loudness (EBU R128) on the way. The PCM goes from this ffmpeg to the
 * next through that file (beside the output, in the job's scratch directory), never held in this
 * process: held here, the longest note's 3.8 MB came out as 64 kB chunks, was joined (twice the
 * bytes) and fed back, and the converter process peaked at 100-165 MB resident with two notes at
 * once; now it streams through, and its memory does not depend on a note's length. This process
 * writes the file, so ffmpeg only decodes: when it fails, the note is at fault, and a full disk is
 * an ENOSPC of ours. Returns the seconds decoded (from the bytes written) and the loudness in
 * LUFS (null for a note too quiet for the meter's gate: silence).
 */
async function decodeMeasured(input: Readable, container: AudioContainer, pcm: string, readSeconds: number, timeoutMs: number, signal?: AbortSignal) {
  const file = createWriteStream(pcm);
  const { stderrTail } = await runTool(
    'ffmpeg',
    [
      '-nostdin',
      '-hide_banner',
      '-nostats',
      '-loglevel',
      'info',
      '-y',
      ...pipeInput(container),
      '-map',
      '0:a:0',
      '-vn',
      '-ac',
      '1',
      '-t',
      String(readSeconds),
      // Measured at the recording's own rate, then resampled: the meter's K-weighting is made for it.
      '-af',
      `ebur128=framelog=verbose,aresample=${SAMPLE_RATE}`,
      // -t bounds what is written: at most readSeconds of PCM (7 MB for a note a second too long).
      // Unflushed, the pipe carries 32 KB writes, not one per packet: 110 chunks for a 60 s note
      // instead of 660-1,080, and this process spends 25 ms of CPU more than when ffmpeg wrote the
      // file, not 125 (a whole conversion: about 950 ms).
      '-flush_packets',
      '0',
      '-f',
      'f32le',
      'pipe:1',
    ],
    timeoutMs,
    { stdin: feed(input, container), signal, stdoutTo: file, maxStdoutBytes: (readSeconds + 1) * PCM_BYTES_PER_SECOND },
  );
  return { seconds: file.bytesWritten / PCM_BYTES_PER_SECOND, lufs: parseIntegratedLufs(stderrTail) };
}

/**
 * The second pass: the PCM file, brought to the loudness target and limited below clipping,
 * encoded as AAC in M4A. ffmpeg writes the file itself (the index at the front needs a file it can
 * seek), so a failure may be the samples' (a note whose decoder gave NaN) or the file's (a full
 * disk: "Error initializing output stream 0:0", or, without -xerror, exit 0 and the file cut
 * short). The same encoding sent nowhere then tells which, whatever ffmpeg said: it writes nothing.
 */
async function encodeM4a(pcm: string, output: string, gainDb: number, timeoutMs: number, signal?: AbortSignal) {
  const encode = (to: string[]) =>
    runTool(
      'ffmpeg',
      [
        '-nostdin',
        '-hide_banner',
        '-loglevel',
        'error',
        '-xerror',
        '-y',
        // Our own file of raw samples, written by the first pass: read as such (no demuxer guesses, no other protocol).
        '-protocol_whitelist',
        'file',
        '-f',
        'f32le',
        '-ar',
        String(SAMPLE_RATE),
        '-ac',
        '1',
        '-i',
        pcm,
        '-af',
        `volume=${gainDb.toFixed(2)}dB,alimiter=limit=${LIMIT_LINEAR}:level=false:latency=true`,
        // AAC-LC at 24 kbit/s (ffmpeg's encoder spends about 25 on speech): a 60 s note is about 190 KB,
        // 3.8 s on the race-day bench's 400 kbit/s cell where 35 kbit/s took 5.2 s.
        '-c:a',
        'aac',
        '-b:a',
        '24k',
        ...to,
      ],
      timeoutMs,
      { signal },
    );
  try {
    await encode(['-movflags', '+faststart', '-f', 'mp4', output]);
  } catch (err) {
    if (!(err instanceof MediaToolError) || err.timedOut) throw err;
    // Fails again: the samples are at fault (that MediaToolError). Succeeds: writing the file failed.
    await encode(['-f', 'null', '-']);
    throw new StorageFault('disk_full', err);
  }
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
 * the note's duration, counted in decoded samples. Rejects with a MediaToolError when the note
 * is at fault, a StorageFault when the disk under `output` is (full), and any other error when
 * neither is known (a time limit, ffmpeg killed or not started, a file system's I/O error).
 */
export async function convertToM4a(
  input: Readable,
  container: AudioContainer,
  output: string,
  opts: { timeoutMs: number; maxSeconds: number; signal?: AbortSignal },
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
