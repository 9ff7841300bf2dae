/** Microphone and MediaRecorder capabilities, and plain explanations when they are missing. */
import { MAX_NOTE_BYTES } from '../shared/limits.js';

/** FIELD-NOTES order: Opus in WebM, then MP4 (Safari), then Ogg, then the browser's default. */
const PREFERRED_TYPES = ['audio/webm;codecs=opus', 'audio/mp4', 'audio/ogg;codecs=opus'];

/** Speech needs little: about 24 kbps (a WhatsApp voice note is ~140 kB a minute). */
export const AUDIO_BITS_PER_SECOND = 24_000;
/**
 * The bitrate is only a hint, so a recording is also capped by size, half a MiB below the
 * server's MAX_NOTE_BYTES so the last second's chunk still fits.
 */
export const MAX_RECORDING_BYTES = MAX_NOTE_BYTES - 512 * 1024;

export const VOICE_CONSTRAINTS: MediaStreamConstraints = {
  audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true },
};

export function chooseMimeType(isSupported: (type: string) => boolean = (t) => MediaRecorder.isTypeSupported(t)): string | undefined {
  return PREFERRED_TYPES.find((type) => isSupported(type));
}

const OPEN_IN_BROWSER =
  "If you opened this link inside another app (Instagram, Facebook, WhatsApp…), tap the ••• menu and choose 'Open in Safari' or 'Open in browser'.";

/** Why recording cannot even be tried here, or undefined when it can. */
export function recordingUnavailableReason(env = globalThis as { isSecureContext?: boolean; navigator?: Navigator; MediaRecorder?: unknown }) {
  if (env.isSecureContext === false) return `This page must be opened over a secure (https) link to use the microphone. ${OPEN_IN_BROWSER}`;
  if (!env.navigator?.mediaDevices?.getUserMedia) return `This browser can't use the microphone. ${OPEN_IN_BROWSER}`;
  if (typeof env.MediaRecorder !== 'function') return `This browser can't record audio. ${OPEN_IN_BROWSER}`;
  return undefined;
}

/** getUserMedia's failures, each with how to fix it. */
export function microphoneErrorMessage(error: unknown): string {
  const name = (error as { name?: string } | null)?.name;
  switch (name) {
    case 'NotAllowedError':
    case 'SecurityError':
      return (
        'Microphone access is turned off for this page. On iPhone: open Settings › Safari › Microphone and choose Allow ' +
        '(and check Settings › Privacy & Security › Microphone). On Android: tap the icon left of the address, ' +
        "choose Permissions › Microphone › Allow. Then tap 'Record' again."
      );
    case 'NotFoundError':
    case 'OverconstrainedError':
      return "No microphone was found on this device. Connect or turn on a microphone, then tap 'Record' again.";
    case 'NotReadableError':
    case 'AbortError':
      return "The microphone is busy in another app (a call or a voice memo?). Close that app, then tap 'Record' again.";
    default:
      return `The microphone could not start (${name ?? 'unknown error'}). Reload the page and try again.`;
  }
}
