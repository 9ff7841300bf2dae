/**
 * The sync cursor the runner's app hands back as `after`: the number of the latest change it has
 * seen (migration 8), tied to its entry by a short check, so a cursor of another entry, one cut
 * short or one made up is refused instead of silently skipping notes. Opaque to the app.
 */
import { createHash } from 'node:crypto';

/** Longest cursor accepted (the schema's bound): 13 base-36 digits cover 2^53. */
export const MAX_CURSOR_LENGTH = 32;

const check = (entryId: string, seq: number) => createHash('sha256').update(`note-cursor\n${entryId}\n${seq}`).digest('base64url').slice(0, 8);

export function encodeCursor(entryId: string, seq: number): string {
  return `${seq.toString(36)}.${check(entryId, seq)}`;
}

/** The change number a cursor stands for, or undefined when it is not a cursor of this entry. */
export function decodeCursor(entryId: string, cursor: string): number | undefined {
  const match = /^([0-9a-z]{1,13})\.([A-Za-z0-9_-]{8})$/.exec(cursor);
  if (!match) return undefined;
  const seq = parseInt(match[1]!, 36);
  if (!Number.isSafeInteger(seq) || seq.toString(36) !== match[1]) return undefined;
  return check(entryId, seq) === match[2] ? seq : undefined;
}
