/** Named outbox errors, each with a message a person can act on. */

export class StorageFullError extends Error {
  override name = 'StorageFullError';
  constructor() {
    super(
      "Your phone's storage is full, so recording stopped. What you had already recorded is kept and " +
        'you can still send it. To record more, free some space (delete photos or videos) first.',
    );
  }
}

export class RecordingMissingError extends Error {
  override name = 'RecordingMissingError';
  constructor() {
    super('This recording is no longer on this phone. Please record your note again.');
  }
}

/** Turn IndexedDB's quota failure into StorageFullError; everything else passes through. */
export function asStorageError(error: unknown): unknown {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'QuotaExceededError' ? new StorageFullError() : error;
}
