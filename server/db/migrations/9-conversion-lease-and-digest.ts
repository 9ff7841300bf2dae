/**
 * Migration 9: the converted file's SHA-256 and size, kept when the worker stores it, so the audio
 * routes answer with a strong ETag, 304s and byte ranges without reading the file first (notes
 * converted before this have neither; the audio routes then work them out from the file). And the
 * conversion lease's owner, a random id per claim: a short lease renewed by a heartbeat must know
 * it is still the same claim, which `attempts` cannot tell once a job handed back is claimed again.
 */
export const CONVERSION_LEASE_AND_DIGEST_COLUMNS = `
  ALTER TABLE jobs ADD COLUMN lease_owner TEXT;
  ALTER TABLE notes ADD COLUMN converted_sha256 TEXT;
  ALTER TABLE notes ADD COLUMN converted_bytes BIGINT
`;
