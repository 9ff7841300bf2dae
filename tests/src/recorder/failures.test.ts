import { describe, expect, it } from 'vitest';
import { RecordingMissingError, StorageFullError } from '../../../src/outbox/index.js';
import { FAILED, describeFailure } from '../../../src/recorder/failures.js';

describe('what a person reads when an action fails', () => {
  it("should say the phone's storage is full when it is, whichever action hit it", () => {
    expect(describeFailure(new StorageFullError(), FAILED.delete)).toMatch(/storage is full/);
    expect(describeFailure(new DOMException('quota', 'QuotaExceededError'), FAILED.retry)).toMatch(/storage is full/);
  });

  it('should say a recording is gone when it is', () => {
    expect(describeFailure(new RecordingMissingError(), FAILED.listen)).toBe('This recording is no longer on this phone. Please record your note again.');
  });

  it('should say what failed and what to do for anything else, never the raw error', () => {
    expect(describeFailure(new DOMException('The database is busy.', 'UnknownError'), FAILED.delete)).toBe(
      'This note could not be deleted from this phone. Try again.',
    );
    expect(describeFailure(undefined, FAILED.retry)).toBe('This note could not be queued again. Try again in a moment.');
  });
});
