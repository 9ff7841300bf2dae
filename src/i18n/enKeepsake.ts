/**
 * English words only the keepsake page speaks (src/keepsake/, /s/:token), loaded with its chunk
 * rather than with the recorder's, which the keepsake shares the words' code with: it adds them to
 * English before its first render (addEnglish in ./index.ts). The other languages' catalogues
 * carry these keys too.
 */
import { KEEPSAKE_TITLE } from '../shell.js';

export const enKeepsake = {
  'title.keepsake': KEEPSAKE_TITLE,
  'keepsake.loading': 'Loading...',
  'keepsake.eyebrow': 'Voice notes for',
  'keepsake.none': 'No notes are shared here yet.',
  'keepsake.from': 'From {from}',
  'keepsake.audioLabel': 'Voice note from {from} at {marker}',
  'keepsake.goneTitle': "These notes aren't shared",
  'keepsake.gone': "These notes aren't shared any more, or the link is incomplete. Ask the runner to share them again.",
  'keepsake.unreachableTitle': "Can't load these notes",
  'keepsake.unreachable': "We can't load these notes right now. Check your connection and reload the page.",
} as const;
