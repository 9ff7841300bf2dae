/** What a person reads when something they asked for fails: our own sentence when we know the cause. */
import { RecordingMissingError, StorageFullError } from '../outbox/index.js';
import { t, type Key } from '../i18n/index.js';

/** Fallback sentences, one per action (catalogue keys): what failed and what the person can do. */
export const FAILED = {
  record: 'failed.record',
  save: 'failed.save',
  listen: 'failed.listen',
  recordAgain: 'failed.recordAgain',
  retry: 'failed.retry',
  delete: 'failed.delete',
  readNotes: 'failed.readNotes',
  send: 'failed.send',
} as const satisfies Record<string, Key>;

export type FailedKey = (typeof FAILED)[keyof typeof FAILED];

/** A failure as the key of its sentence: kept as a key, so it is said in whatever language is in use when shown. */
export type FailureKey = FailedKey | 'error.storageFull' | 'error.recordingMissing';

/** The key for a failed action: the named cause when we know it, else the action's fallback (one of FAILED). */
export function failureKey(error: unknown, fallback: FailedKey): FailureKey {
  if (error instanceof StorageFullError || (error as { name?: unknown } | null)?.name === 'QuotaExceededError') return 'error.storageFull';
  if (error instanceof RecordingMissingError) return 'error.recordingMissing';
  return fallback;
}

/** The sentence for a failed action, in the language in use now. */
export const describeFailure = (error: unknown, fallback: FailedKey): string => t(failureKey(error, fallback));
