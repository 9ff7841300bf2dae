/**
 * How this page records a voice note: the container it asks MediaRecorder for, the bitrate, the
 * microphone's constraints, the size cap, and whether recording can be tried here at all. No words
 * and no React: the recording engine (./engine.ts) decides with these, the screens say why in words.
 */
import { MAX_NOTE_BYTES } from '../../contract/limits.js';

/** Opus in WebM, then MP4 (Safari), then Ogg, then the browser's default. */
const PREFERRED_TYPES = ['audio/webm;codecs=opus', 'audio/mp4', 'audio/ogg;codecs=opus'];

/** Speech needs little: about 24 kbps of Opus, ~3 kB a second (a WhatsApp voice note is ~140 kB a minute). */
export const AUDIO_BITS_PER_SECOND = 24_000;
/**
 * AAC in fragmented MP4 (Safari's container) lands above that at the same setting: measured in
 * WebKitGTK 2.50 with speech, 24000 gave about 3.8 kB/s on the wire against Opus's 3.1-3.4;
 * 20000 gives about 3.3 (tests/engines prints the number for each engine).
 */
export const AAC_BITS_PER_SECOND = 20_000;

/** The audioBitsPerSecond to ask for with the chosen type (undefined: the browser's default, treated as Opus). */
export function bitsPerSecondFor(mimeType: string | undefined): number {
  return mimeType?.startsWith('audio/mp4') ? AAC_BITS_PER_SECOND : AUDIO_BITS_PER_SECOND;
}

/**
 * The bitrate is only a hint, so a recording is also capped by size, half a MiB below the
 * server's MAX_NOTE_BYTES so the last second's chunk still fits.
 */
export const MAX_RECORDING_BYTES = MAX_NOTE_BYTES - 512 * 1024;

export const VOICE_CONSTRAINTS: MediaStreamConstraints = {
  audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true },
};

export function chooseMimeType(isSupported: (type: string) => boolean = (type) => MediaRecorder.isTypeSupported(type)): string | undefined {
  return PREFERRED_TYPES.find((type) => isSupported(type));
}

/** Why recording cannot even be tried in this browser. */
export type Unavailable = 'insecure' | 'noMicrophone' | 'noRecorder';

/** Why recording cannot even be tried here, or undefined when it can. */
export function recordingUnavailable(
  env = globalThis as { isSecureContext?: boolean; navigator?: Navigator; MediaRecorder?: unknown },
): Unavailable | undefined {
  if (env.isSecureContext === false) return 'insecure';
  if (!env.navigator?.mediaDevices?.getUserMedia) return 'noMicrophone';
  if (typeof env.MediaRecorder !== 'function') return 'noRecorder';
  return undefined;
}
