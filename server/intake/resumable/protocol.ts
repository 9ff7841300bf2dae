/**
 * The server's side of the resumable-upload wire format (contract/uploadProtocol.ts owns the
 * shared facts): the schemas its headers are read through, and the Upload-Limit it announces.
 */
import { Type } from 'typebox';
import { MAX_NOTE_BYTES } from '../../../contract/limits.js';
import { UPLOAD_HEADER } from '../../../contract/uploadProtocol.js';

/** A Structured Fields Boolean, as Upload-Complete carries it. */
const SfBoolean = (description: string) => Type.Union([Type.Literal('?1'), Type.Literal('?0')], { description });
/** A Structured Fields non-negative Integer: at most 15 digits, read with Number(). */
const SfInteger = (description: string) => Type.String({ pattern: '^[0-9]{1,15}$', description });

const COMPLETE = 'Whether this request ends the note (?1) or more will follow (?0).';
const LENGTH = "The whole note's length in bytes, once known.";

/**
 * A note's PUT: with Upload-Complete it is an upload creation (the draft's "upgrading" of a plain
 * upload), and may say the note's length. Without it, a whole PUT.
 */
export const CreationHeadersSchema = Type.Object({
  [UPLOAD_HEADER.complete]: Type.Optional(SfBoolean(COMPLETE)),
  [UPLOAD_HEADER.length]: Type.Optional(SfInteger(LENGTH)),
});

/** An append (PATCH): where its body starts, whether it ends the note, and perhaps the note's length. */
export const AppendHeadersSchema = Type.Object({
  [UPLOAD_HEADER.offset]: SfInteger('Where this body starts in the note: the offset the server last reported.'),
  [UPLOAD_HEADER.complete]: SfBoolean(COMPLETE),
  [UPLOAD_HEADER.length]: Type.Optional(SfInteger(LENGTH)),
});

/** An SF Integer header the schema let through, as a number. */
export const sfInteger = (value: string | undefined) => (value === undefined ? undefined : Number(value));

export const uploadLimit = (expiresAt: number, now: number) =>
  `max-size=${MAX_NOTE_BYTES}, max-append-size=${MAX_NOTE_BYTES}, max-age=${Math.max(0, Math.floor((expiresAt - now) / 1000))}`;
