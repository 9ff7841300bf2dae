/**
 * Migration 14: a race's own picture for the home page's card, given with
 * `add-race --image`. `image_key` names the file in the blob store (server/storage/keys.ts:
 * race-images/<race>.<sha256 prefix>.<ext>, so a new picture is a new address and the old one may be
 * cached for ever) and `image_type` its content type as sniffed; both null when the operator gave
 * none and the card shows the generic picture.
 */
export const RACE_IMAGE_COLUMNS = `
  ALTER TABLE races ADD COLUMN image_key TEXT;
  ALTER TABLE races ADD COLUMN image_type TEXT
`;
