import { createWriteStream } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MediaToolError, runTool } from '../../../server/audio/ffmpeg.js';

describe('a tool run', () => {
  it('should be stopped, and fail, when it writes more than it may hold in memory', async () => {
    const tenSeconds = ['-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', 'sine=d=10:r=24000', '-f', 'f32le', 'pipe:1'];
    const run = runTool('ffmpeg', tenSeconds, 20_000, { maxStdoutBytes: 100_000 });
    await expect(run).rejects.toBeInstanceOf(MediaToolError);
    await expect(run).rejects.toThrow(/wrote more than 100000 bytes/);
    expect((await runTool('ffmpeg', tenSeconds, 20_000, { maxStdoutBytes: 960_000 })).stdout.length).toBe(960_000);
  });

  it('should not blame the note when the tool is killed by someone else or cannot start: those are no MediaToolError', async () => {
    // The kernel's out-of-memory killer, or an operator, ends ffmpeg with a signal; a full process table keeps it from starting.
    const killed = await runTool('sh', ['-c', 'kill -9 $$'], 20_000).catch((err: unknown) => err);
    expect(killed).not.toBeInstanceOf(MediaToolError);
    expect(String(killed)).toMatch(/stopped by SIGKILL/);
    const missing = await runTool('no-such-tool-anywhere', [], 20_000).catch((err: unknown) => err);
    expect(missing).not.toBeInstanceOf(MediaToolError);
    expect(String(missing)).toMatch(/could not be started/);
  });

  it('should fail with the file system’s own error when the file its output streams into cannot be written', async () => {
    // /dev/full: every write is ENOSPC, as on a full disk; the tool itself only wrote into a pipe.
    const run = runTool('ffmpeg', ['-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', 'sine=d=10', '-f', 'f32le', 'pipe:1'], 20_000, {
      stdoutTo: createWriteStream('/dev/full'),
      maxStdoutBytes: 10_000_000,
    });
    await expect(run).rejects.toMatchObject({ code: 'ENOSPC' });
    await expect(run).rejects.not.toBeInstanceOf(MediaToolError);
  });

  it('should run at niceness 10, so that any request gets the CPU first', async () => {
    // The tool reports on itself: /proc's niceness (field 19 of stat).
    const { stdout } = await runTool('sh', ['-c', 'cut -d" " -f19 /proc/$$/stat'], 20_000);
    expect(stdout.toString().trim()).toBe('10');
  });
});
