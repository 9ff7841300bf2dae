import { describe, expect, it } from 'vitest';
import { MAX_NOTE_BYTES } from '../../../contract/limits.js';
import {
  AAC_BITS_PER_SECOND,
  AUDIO_BITS_PER_SECOND,
  MAX_RECORDING_BYTES,
  bitsPerSecondFor,
  chooseMimeType,
  recordingUnavailable,
} from '../../../src/recording/formats.js';

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

describe('whether recording can be tried here', () => {
  const navigatorWithMic = { mediaDevices: { getUserMedia: () => undefined } } as unknown as Navigator;

  it('names what is missing', () => {
    expect(recordingUnavailable({ isSecureContext: false, navigator: navigatorWithMic, MediaRecorder: class {} })).toBe('insecure');
    expect(recordingUnavailable({ isSecureContext: true, navigator: {} as Navigator, MediaRecorder: class {} })).toBe('noMicrophone');
    expect(recordingUnavailable({ isSecureContext: true, navigator: navigatorWithMic })).toBe('noRecorder');
    expect(recordingUnavailable({ isSecureContext: true, navigator: navigatorWithMic, MediaRecorder: class {} })).toBeUndefined();
  });
});
