import { describe, expect, it } from 'vitest';
import { MAX_NOTE_BYTES } from '../../../src/shared/limits.js';
import {
  AAC_BITS_PER_SECOND,
  AUDIO_BITS_PER_SECOND,
  MAX_RECORDING_BYTES,
  bitsPerSecondFor,
  chooseMimeType,
  microphoneErrorMessage,
  recordingUnavailableReason,
} from '../../../src/recorder/mic.js';

describe('choosing how to record', () => {
  it('prefers Opus in WebM, then MP4 for Safari, then Ogg', () => {
    expect(chooseMimeType(() => true)).toBe('audio/webm;codecs=opus');
    expect(chooseMimeType((t) => t !== 'audio/webm;codecs=opus')).toBe('audio/mp4');
    expect(chooseMimeType((t) => t === 'audio/ogg;codecs=opus')).toBe('audio/ogg;codecs=opus');
  });

  it("falls back to the browser's default when none is supported", () => {
    expect(chooseMimeType(() => false)).toBeUndefined();
  });

  it('asks AAC in MP4 (Safari) for fewer bits than Opus, so both cost about 3 kB a second of speech', () => {
    expect(bitsPerSecondFor('audio/mp4')).toBe(AAC_BITS_PER_SECOND);
    expect(bitsPerSecondFor('audio/mp4; codecs=mp4a')).toBe(AAC_BITS_PER_SECOND);
    expect(bitsPerSecondFor('audio/webm;codecs=opus')).toBe(AUDIO_BITS_PER_SECOND);
    expect(bitsPerSecondFor('audio/ogg;codecs=opus')).toBe(AUDIO_BITS_PER_SECOND);
    expect(bitsPerSecondFor(undefined)).toBe(AUDIO_BITS_PER_SECOND);
    expect(AAC_BITS_PER_SECOND).toBeLessThan(AUDIO_BITS_PER_SECOND);
  });

  it('keeps a recording below the largest note the server accepts', () => {
    expect(MAX_RECORDING_BYTES).toBeLessThan(MAX_NOTE_BYTES);
  });
});

describe('when the microphone cannot be used', () => {
  const navigatorWithMic = { mediaDevices: { getUserMedia: () => undefined } } as unknown as Navigator;

  it('says to open the link in a browser when MediaRecorder is missing (in-app browsers)', () => {
    expect(recordingUnavailableReason({ isSecureContext: true, navigator: navigatorWithMic })).toMatch(/can't record audio.*Open in Safari/);
  });

  it('says the page needs a secure link over plain http', () => {
    expect(recordingUnavailableReason({ isSecureContext: false, navigator: navigatorWithMic, MediaRecorder: class {} })).toMatch(/https/);
  });

  it('finds nothing wrong when everything is there', () => {
    expect(recordingUnavailableReason({ isSecureContext: true, navigator: navigatorWithMic, MediaRecorder: class {} })).toBeUndefined();
  });

  it('explains the iPhone Settings path when access is denied', () => {
    expect(microphoneErrorMessage(new DOMException('denied', 'NotAllowedError'))).toMatch(/Settings › Safari › Microphone/);
  });

  it('tells a missing microphone from a busy one', () => {
    expect(microphoneErrorMessage(new DOMException('x', 'NotFoundError'))).toMatch(/No microphone was found/);
    expect(microphoneErrorMessage(new DOMException('x', 'NotReadableError'))).toMatch(/busy in another app/);
  });
});
