/** What people type and what a browser declares, made safe to store and show: names and content types. */
import { MAX_FROM_LENGTH, MAX_RUNNER_NAME_LENGTH } from '../../contract/limits.js';

/**
 * Invisible characters that change how the runner reads a name: bidi embeddings, overrides and
 * isolates (U+202A-U+202E, U+2066-U+2069), the directional marks (U+200E, U+200F, U+061C), and
 * C0/C1 controls. They are stripped rather than refused: a phone keyboard for Hebrew or Arabic
 * inserts the marks on its own, and a refusal would strand an honest note under 'Needs attention'
 * for a character the sender never saw. Stripping them removes nothing a reader could see.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching the C0/C1 controls is this pattern's purpose: they are stripped from names.
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** A name as stored: NFC, hidden characters removed, trimmed, at most `max` characters. Empty when nothing visible is left. */
function cleanName(raw: string, max: number): string {
  const visible = raw.normalize('NFC').replace(HIDDEN, '').trim();
  // Count code points, not UTF-16 units, so a cut never splits a surrogate pair.
  return Array.from(visible).slice(0, max).join('').trim();
}

/** A sender's name ('from'), as the runner will read it. */
export const cleanSenderName = (raw: string): string => cleanName(raw, MAX_FROM_LENGTH);

/** A runner's name, as every friend with the link will read it on the recorder. */
export const cleanRunnerName = (raw: string): string => cleanName(raw, MAX_RUNNER_NAME_LENGTH);

/** Codec names browsers' MediaRecorder reports; anything else in the parameter is dropped. */
const KNOWN_CODECS = new Set(['opus', 'vorbis', 'flac', 'mp4a', 'mp4a.40.2', 'mp4a.40.5', 'mp4a.40.29', 'mp4a.67', 'aac', 'pcm']);

/**
 * The Content-Type as stored: `type/subtype`, plus `;codecs=<one known codec>` when the request
 * named one. Never the header verbatim: other parameters are free text a client chose.
 */
export function cleanContentType(mediaType: string, header: string): string {
  const codecs = /;\s*codecs\s*=\s*"?([a-z0-9.]+)"?\s*(?:;|$)/i.exec(header)?.[1]?.toLowerCase();
  return codecs && KNOWN_CODECS.has(codecs) ? `${mediaType};codecs=${codecs}` : mediaType;
}
