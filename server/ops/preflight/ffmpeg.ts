/**
 * The preflight's ffmpeg line: ffmpeg is on PATH, and the server's own converter process
 * (server/audio/converter.ts) turns a second of each format the recorder sends (a 440 Hz tone that
 * this ffmpeg encodes first, as the browsers record it: nothing recorded is kept in the repository)
 * into the app's AAC. A build without the Opus codec, the MP4 muxer or the AAC encoder fails here. A
 * server with CONVERT_WORKER=off converts nothing and needs no ffmpeg (the servers that convert do).
 */
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdtemp, open, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { FastifyBaseLogger } from 'fastify';
import { startConverter } from '../../audio/converter.js';
import type { AudioContainer } from '../../audio/sniff.js';
import { fail, ok, reasonOf, type PreflightCheck } from './finding.js';

const run = promisify(execFile);
/** What the recorder sends (src/recording/formats.ts prefers them in this order), encoded as the browsers do. */
const SAMPLES: { format: string; container: AudioContainer; encode: string[] }[] = [
  { format: 'WebM/Opus', container: 'webm', encode: ['-c:a', 'libopus', '-b:a', '32k', '-f', 'webm'] },
  { format: 'MP4/AAC', container: 'mp4', encode: ['-c:a', 'aac', '-b:a', '64k', '-movflags', 'frag_keyframe+empty_moov+default_base_moof', '-f', 'mp4'] },
  { format: 'Ogg/Opus', container: 'ogg', encode: ['-c:a', 'libopus', '-b:a', '32k', '-f', 'ogg'] },
];
const TONE = ['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000:duration=1', '-af', 'volume=-12dB', '-ac', '1'];

/** ffmpeg's own last word on a failed run ("Unknown encoder 'aac'"), not the whole command line. */
function lastWordOf(err: unknown): Error {
  const stderr = String((err as { stderr?: unknown }).stderr ?? '');
  const last = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .pop();
  return last ? new Error(last) : err instanceof Error ? err : new Error(String(err));
}
/** Each sample is a second long (1,021 ms as decoded): a conversion that gives back much less or more decoded something else. */
const SAMPLE_MS = 1_000;
const SAMPLE_SLACK_MS = 250;
/**
 * Each of a probe's two ffmpeg runs takes well under a second (at niceness 10, as every conversion:
 * longer on a busy machine); FFMPEG_TIMEOUT_MS is sized for a long note.
 */
const PROBE_TIMEOUT_MS = 20_000;

const FIX =
  "install Debian's ffmpeg (sudo apt-get install -y ffmpeg), which decodes Opus and MP4 and has the native AAC encoder; a minimal or static build may lack one of them.";

/** The first `name` on PATH that may be run, as the server's spawn finds it. */
async function onPath(name: string, pathVar: string | undefined): Promise<string | undefined> {
  for (const dir of (pathVar ?? '').split(path.delimiter).filter(Boolean)) {
    const file = path.join(dir, name);
    try {
      await access(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The converter's log, kept for the line: why its process could not start, say. */
function keptLog(): { log: FastifyBaseLogger; said: string[] } {
  const said: string[] = [];
  const keep = (obj: unknown, msg?: string) => said.push([msg, (obj as { stderr?: string } | undefined)?.stderr].filter(Boolean).join(': '));
  const log = {
    level: 'warn',
    fatal: keep,
    error: keep,
    warn: keep,
    info() {},
    debug() {},
    trace() {},
    silent() {},
    child: () => log,
  } as unknown as FastifyBaseLogger;
  return { log, said };
}

/** Whether `file` is an MP4 (its first box an ftyp: the converter writes the index at the front). */
async function isMp4(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(8);
    const { bytesRead } = await handle.read(head, 0, 8, 0);
    return bytesRead === 8 && head.toString('latin1', 4, 8) === 'ftyp';
  } finally {
    await handle.close();
  }
}

export const ffmpegCheck: PreflightCheck = {
  name: 'ffmpeg',
  // The converter's own limit on a probe that does not answer is 2 x PROBE_TIMEOUT_MS + 10 s.
  timeoutMs: 60_000,
  async run({ config, env }) {
    if (!config.convertWorker) return ok('not needed here: CONVERT_WORKER=off, this server converts no notes (run the check on the servers that do).');
    const found = await onPath('ffmpeg', env.PATH);
    if (!found) return fail('ffmpeg is not installed (not on PATH): no note can be converted for the app.', 'sudo apt-get install -y ffmpeg');
    let version: string;
    try {
      const { stdout } = await run(found, ['-hide_banner', '-version'], { timeout: PROBE_TIMEOUT_MS });
      version = /^ffmpeg version (\S+)/.exec(stdout)?.[1] ?? 'of unknown version';
    } catch (err) {
      return fail(`${found} could not be run: ${reasonOf(err)}.`, FIX);
    }
    const started = Date.now();
    const scratch = await mkdtemp(path.join(os.tmpdir(), 'milenotes-preflight-'));
    const { log, said } = keptLog();
    const converter = startConverter(log);
    try {
      const timeoutMs = Math.min(config.ffmpegTimeoutMs, PROBE_TIMEOUT_MS);
      const results = await Promise.allSettled(
        SAMPLES.map(async (sample) => {
          const input = path.join(scratch, `probe.${sample.container}`);
          await run(found, ['-nostdin', '-hide_banner', '-loglevel', 'error', ...TONE, ...sample.encode, input], { timeout: PROBE_TIMEOUT_MS }).catch(
            (err: unknown) => {
              throw lastWordOf(err);
            },
          );
          const output = path.join(scratch, `${sample.container}.m4a`);
          const { durationMs } = await converter.convert(input, sample.container, output, { timeoutMs, maxSeconds: config.maxNoteSeconds });
          if (Math.abs(durationMs - SAMPLE_MS) > SAMPLE_SLACK_MS) throw new Error(`decoded ${durationMs} ms of a ${SAMPLE_MS} ms sample`);
          if (!(await isMp4(output))) throw new Error('wrote no M4A');
        }),
      );
      const failed = results.flatMap((result, i) => (result.status === 'rejected' ? [{ format: SAMPLES[i]!.format, reason: reasonOf(result.reason) }] : []));
      if (failed.length > 0) {
        const reasons = [...new Set(failed.map((f) => f.reason))];
        const what =
          failed.length === SAMPLES.length && reasons.length === 1
            ? `could not convert any format the recorder sends to the app's AAC: ${reasons[0]}`
            : `could not convert ${failed.map((f) => `${f.format} (${f.reason})`).join(', ')} to the app's AAC`;
        const why = said.length > 0 ? ` The converter said: ${said.join('; ').replace(/\s+/g, ' ').slice(0, 300)}.` : '';
        return fail(`ffmpeg ${version} (${found}) ${what}.${why}`, FIX);
      }
      return ok(
        `ffmpeg ${version} (${found}) converted a second of ${SAMPLES.map((s) => s.format).join(', ')} to the app's AAC through the converter in ${((Date.now() - started) / 1000).toFixed(1)} s.`,
      );
    } finally {
      await converter.close();
      await rm(scratch, { recursive: true, force: true });
    }
  },
};
