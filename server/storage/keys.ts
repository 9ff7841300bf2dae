/** Owns the blob store's key layout: where a note's original upload and its converted M4A live. */
import { randomUUID } from 'node:crypto';

const ORIGINALS = 'originals/';
const CONVERTED = 'converted/';
const UPLOADS = 'uploads/';

/** Where notes' audio lives: every original upload and every converted M4A is under one of these. */
export const NOTE_AUDIO_PREFIXES: readonly string[] = [ORIGINALS, CONVERTED];

/** The folder each kind of note key below starts with (the parts of unfinished uploads too): what backup and verify-storage read. */
export const KEY_PREFIXES = [ORIGINALS, CONVERTED, UPLOADS] as const;

/**
 * A fresh key for one upload of a note. The random suffix means two racing uploads of one id never
 * write the same object (the row insert picks the winner; the loser removes its copy). One flat
 * folder: a new file then needs only that folder synced, not a new folder per note too.
 */
export const newOriginalKey = (noteId: string, sha256: string): string => `${ORIGINALS}${noteId}.${sha256}.${randomHex12()}`;

/** 48 random bits as 12 hex digits: a UUID's first two groups (its version digit comes after). randomUUID draws from a cached pool, where randomBytes asked the system on every upload. */
function randomHex12(): string {
  const uuid = randomUUID();
  return uuid.slice(0, 8) + uuid.slice(9, 13);
}

/** The converted file's one place. The worker writes it before recording it, so deletion removes it by id too. */
export const convertedKey = (noteId: string): string => `${CONVERTED}${noteId}.m4a`;

/**
 * One part of a resumable upload, named by where it starts and by the append that wrote it: an
 * append whose lease ran out can then never overwrite the part of the one that took over.
 */
export const uploadPartKey = (noteId: string, offset: number, owner: string): string => `${UPLOADS}${noteId}/${offset}-${owner}`;

/** The folder of race pictures in the store; the part after it is the picture's file name on the site (/race-images/<name>). */
export const RACE_IMAGES = 'race-images/';

/**
 * A race's picture for the home page: named by its race and its content, so a new picture
 * is a new key and a new address, and the old one may be cached by browsers for ever. Outside the
 * orphan sweep's prefixes: the sweep never touches it. `.card.webp` says this server made it
 * (server/races/race-image.ts); a picture stored before, as the operator gave it, has
 * `.jpg`, `.png` or plain `.webp` and is never served (remake-race-pictures makes it again).
 */
export const raceImageKey = (raceId: string, sha256: string): string => `${RACE_IMAGES}${raceId}.${sha256.slice(0, 16)}.card.webp`;

/** A made picture's file name: <race id>.<16 hex of its SHA-256>.card.webp; [1] is the race, [2] the hash. */
export const MADE_RACE_IMAGE_NAME = /^([a-z0-9]+(?:-[a-z0-9]+)*)\.([0-9a-f]{16})\.card\.webp$/;

/** Whether this server made the picture at `key` (the operator's own bytes are never served). */
export const isMadeRaceImage = (key: string): boolean => key.startsWith(RACE_IMAGES) && MADE_RACE_IMAGE_NAME.test(key.slice(RACE_IMAGES.length));

/** The address the site serves a race's picture at: its key, under the site's root (server/routes/race-images.ts). */
export const raceImageUrl = (key: string): string => `/${key}`;

/**
 * The preflight's probe object (npm run admin -- check): written, read back and removed at once. At
 * the store's top level, outside the prefixes the orphan sweep owns; a run killed in between leaves
 * its few bytes there.
 */
export const preflightProbeKey = (): string => `preflight-probe.${randomUUID()}`;
