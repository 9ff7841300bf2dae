import { describe, expect, it } from 'vitest';
import { blockedMessage, microphoneErrorMessage, unavailableMessage } from '../../../src/recorder/mic.js';

describe('when the microphone cannot be used', () => {
  it('says to open the link in a browser when MediaRecorder is missing (in-app browsers)', () => {
    expect(unavailableMessage('noRecorder')).toMatch(/can't record audio.*Open in Safari/);
  });

  it('says the page needs a secure link over plain http', () => {
    expect(unavailableMessage('insecure')).toMatch(/https/);
  });

  it('explains the iPhone Settings path when access is denied', () => {
    expect(microphoneErrorMessage(new DOMException('denied', 'NotAllowedError'))).toMatch(/Settings › Safari › Microphone/);
  });

  it('tells a missing microphone from a busy one', () => {
    expect(microphoneErrorMessage(new DOMException('x', 'NotFoundError'))).toMatch(/No microphone was found/);
    expect(microphoneErrorMessage(new DOMException('x', 'NotReadableError'))).toMatch(/busy in another app/);
  });
});

describe('when the recording engine did not start', () => {
  it('says each reason in words, with what to do', () => {
    expect(blockedMessage({ kind: 'unavailable', reason: 'noRecorder' })).toMatch(/can't record audio.*Open in Safari/);
    expect(blockedMessage({ kind: 'microphone', error: 'NotAllowedError' })).toMatch(/Settings › Safari › Microphone/);
    expect(blockedMessage({ kind: 'microphone', error: undefined })).toMatch(/unknown error/);
    expect(blockedMessage({ kind: 'recorder', error: 'NotSupportedError' })).toMatch(/could not start recording \(NotSupportedError\)/);
  });
});
