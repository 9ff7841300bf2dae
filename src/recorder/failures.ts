/** What a person reads when something they asked for fails: our own sentence when we know the cause. */
import { RecordingMissingError, StorageFullError } from '../shared/outbox/index.js';
import { t, type Key } from './i18n/index.js';

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

const isFailedKey = (value: string): value is FailedKey => (Object.values(FAILED) as string[]).includes(value);

/**
 * The sentence for a failed action, in the language in use. `fallback` is one of FAILED; a
 * string that is not (none today) is shown as it is.
 */
export function describeFailure(error: unknown, fallback: FailedKey | (string & {})): string {
  if (error instanceof StorageFullError || (error as { name?: unknown } | null)?.name === 'QuotaExceededError') return t('error.storageFull');
  if (error instanceof RecordingMissingError) return t('error.recordingMissing');
  return isFailedKey(fallback) ? t(fallback) : fallback;
}
