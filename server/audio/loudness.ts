/**
 * The loudness rule for notes: every note plays at about the same level in the runner's ears,
 * whether it was recorded in a quiet kitchen or a loud street (EBU R128). The whole
 * note is measured first (integrated loudness), then one gain brings it to the target and a
 * limiter keeps its peaks below clipping: a linear gain keeps the voice as it was said, and is
 * cheaper than ffmpeg's one-pass `loudnorm`, which works at 192 kHz inside (a 35 s spoken note
 * took 1.4-1.5 s of CPU to convert with it, 1.0 s this way, measured here).
 */

/** Where every note is brought: the level of spoken podcasts and of Apple's own. */
export const TARGET_LUFS = -16;

/** The most a note is raised: a whisper becomes a voice; a recording of nearly nothing stays quiet rather than all hiss. */
export const MAX_GAIN_DB = 30;

/**
 * The limiter's ceiling, -3 dBFS as a linear sample value: AAC at 24-32 kbit/s overshoots peaky
 * speech by up to ~2.5 dB (measured here: -1.5 dBFS in came out at +0.8 dBFS, -3 at -0.5).
 */
export const LIMIT_LINEAR = 0.71;

/**
 * The integrated loudness in ffmpeg's `ebur128` summary (the last "I: ... LUFS" of its log), or
 * null when the meter found nothing above its gate (silence, reported as -70 LUFS).
 */
export function parseIntegratedLufs(log: string): number | null {
  const all = [...log.matchAll(/^\s*I:\s+(-?[\d.]+|-inf) LUFS\s*$/gm)];
  const lufs = Number(all.at(-1)?.[1]);
  return Number.isFinite(lufs) && lufs > -70 ? lufs : null;
}

/** The gain in dB that brings a note measured at `lufs` to the target (0 for silence), never more than MAX_GAIN_DB. */
export function gainToTarget(lufs: number | null): number {
  if (lufs === null) return 0;
  return Math.min(TARGET_LUFS - lufs, MAX_GAIN_DB);
}
