/** Runs ffmpeg and ffprobe as child processes with a time limit; a failure becomes a one-line reason, never a crash. */
import { spawn } from 'node:child_process';

export class MediaToolError extends Error {
  constructor(message: string, readonly timedOut = false) {
    super(message);
    this.name = 'MediaToolError';
  }
}

/** Runs a tool, resolving with its stdout; rejects with the last meaningful stderr line. */
export function runTool(command: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    // Keep only the tail: ffmpeg's reason for failing is at the end.
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new MediaToolError(`${command} could not be started: ${err.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (timedOut) return reject(new MediaToolError(`${command} took longer than ${timeoutMs} ms and was stopped`, true));
      if (code === 0) return resolve(stdout);
      const lines = stderr.split('\n').map((l) => l.trim()).filter(Boolean);
      reject(new MediaToolError(lines.at(-1) ?? `${command} exited with code ${code}`));
    });
  });
}

/**
 * Any audio ffmpeg decodes -> AAC in M4A, mono, loudness-normalised to about -16 LUFS (EBU R128,
 * single pass), with the index at the front so playback can start before the file is complete.
 */
export async function convertToM4a(input: string, output: string, timeoutMs: number): Promise<void> {
  await runTool('ffmpeg', [
    '-nostdin', '-hide_banner', '-loglevel', 'error', '-y',
    '-i', input,
    '-vn', '-ac', '1',
    '-af', 'loudnorm=I=-16:TP=-1.5:LRA=11',
    // loudnorm upsamples to 192 kHz internally; bring it back to a rate AAC players expect.
    '-ar', '48000',
    '-c:a', 'aac', '-b:a', '64k',
    '-movflags', '+faststart',
    '-f', 'mp4', output,
  ], timeoutMs);
}

/** Duration in milliseconds, as ffprobe reads it from the container. */
export async function probeDurationMs(file: string, timeoutMs: number): Promise<number> {
  const out = await runTool('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file], timeoutMs);
  const seconds = Number(out.trim());
  if (!Number.isFinite(seconds) || seconds <= 0) throw new MediaToolError('the converted file has no duration');
  return Math.round(seconds * 1000);
}
