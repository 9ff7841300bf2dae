/**
 * Limits the server enforces and the page respects, written once. No schemas and no imports, so
 * the recorder's chunk can use them without pulling typebox in.
 */

/**
 * Largest note body the server accepts. 60 s of speech at Chrome's default Opus (~128 kbps) is
 * ~1 MB and Safari's AAC can run to ~2 MB; 3 MiB leaves headroom for container overhead.
 */
export const MAX_NOTE_BYTES = 3 * 1024 * 1024;

/** Longest note a person can record (peers cap at 30 s; ours at a minute). */
export const MAX_RECORDING_MS = 60_000;

/** Longest sender name ('from'), in characters. */
export const MAX_FROM_LENGTH = 60;

/** Longest runner's display name, in characters: the runner API and the admin CLI alike. */
export const MAX_RUNNER_NAME_LENGTH = 60;
