/** Microphone and MediaRecorder capabilities, and plain explanations when they are missing. */
import { MAX_NOTE_BYTES } from '../shared/limits.js';
import { t } from '../i18n/index.js';

/** FIELD-NOTES order: Opus in WebM, then MP4 (Safari), then Ogg, then the browser's default. */
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

/** What to do about it, after each reason recording cannot be tried here. */
const inAnotherApp = (reason: string) => `${reason} ${t('mic.openInBrowser')}`;

/** Why recording cannot even be tried here, or undefined when it can. */
export function recordingUnavailableReason(env = globalThis as { isSecureContext?: boolean; navigator?: Navigator; MediaRecorder?: unknown }) {
  if (env.isSecureContext === false) return inAnotherApp(t('mic.insecure'));
  if (!env.navigator?.mediaDevices?.getUserMedia) return inAnotherApp(t('mic.noMicrophone'));
  if (typeof env.MediaRecorder !== 'function') return inAnotherApp(t('mic.noRecorder'));
  return undefined;
}

/** getUserMedia's failures, each with how to fix it. */
export function microphoneErrorMessage(error: unknown): string {
  const name = (error as { name?: string } | null)?.name;
  switch (name) {
    case 'NotAllowedError':
    case 'SecurityError':
      return t('mic.denied');
    case 'NotFoundError':
    case 'OverconstrainedError':
      return t('mic.notFound');
    case 'NotReadableError':
    case 'AbortError':
      return t('mic.busy');
    default:
      return t('mic.failed', { name: name ?? t('mic.unknownError') });
  }
}
