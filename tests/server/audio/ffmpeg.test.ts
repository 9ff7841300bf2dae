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

  it('should run at niceness 10, so that any request gets the CPU first', async () => {
    // The tool reports on itself: /proc's niceness (field 19 of stat).
    const { stdout } = await runTool('sh', ['-c', 'cut -d" " -f19 /proc/$$/stat'], 20_000);
    expect(stdout.toString().trim()).toBe('10');
  });
});
