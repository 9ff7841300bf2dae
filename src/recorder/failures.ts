/** What a person reads when something they asked for fails: our own sentence when we know the cause. */
import { RecordingMissingError, StorageFullError } from '../shared/outbox/index.js';

export function describeFailure(error: unknown, fallback: string): string {
  if (error instanceof StorageFullError || error instanceof RecordingMissingError) return error.message;
  if ((error as { name?: unknown } | null)?.name === 'QuotaExceededError') return new StorageFullError().message;
  return fallback;
}

/** Fallback sentences, one per action: what failed and what the person can do. */
export const FAILED = {
  record: 'Recording could not start. Reload the page and try again.',
  save: 'This note could not be saved on this phone. Try again.',
  listen: 'This recording could not be opened. Try again, or record again.',
  recordAgain: 'This recording could not be removed from this phone. Try again.',
  retry: 'This note could not be queued again. Try again in a moment.',
  delete: 'This note could not be deleted from this phone. Try again.',
  readNotes: "Your notes could not be read from this phone's storage. Reload the page to see them.",
  send: "Sending stopped: this phone's storage could not be read. Reload the page to try again.",
} as const;
