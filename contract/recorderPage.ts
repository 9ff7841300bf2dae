/**
 * /r/:token's page as the build makes it and the server completes it: the marks in the built shell
 * where the server puts the first screen it draws for a live link, where the build puts the code
 * that draws it (src/entry-recorder.tsx, built on its own), and what that code is given and gives
 * back (server/routes/recorder-screen.ts calls it).
 */
import type { RecorderLink } from './api.js';
import type { Lang } from './languages.js';

/** /r/:token's shell: the comments around its spinner, which the server replaces with the screen it draws for a live link. */
export const RECORDER_SCREEN_MARKS = { start: '<!--screen-->', end: '<!--/screen-->' } as const;

/**
 * Where the build puts the server's drawing of /r/:token's first screen (src/entry-recorder.tsx),
 * under the site's folder, so a copy of that folder is all a server needs; never served (a dot folder).
 */
export const RECORDER_RENDERER = '.server/recorder.mjs';

export interface RecorderPageInput {
  token: string;
  /** What GET /api/r/:token answers now, which the page carries too. */
  link: RecorderLink;
  /** The request's Accept-Language header, if it sent one. */
  acceptLanguage?: string;
}

/** HTML, escaped by React, to put into the page as it is. */
export interface RecorderPageParts {
  /** The language it is drawn in: the page's <html lang>. */
  lang: Lang;
  /** The page's title in that language (plain text). */
  title: string;
  /** What goes inside #root. */
  screen: string;
  /** Templates for the first screen's script, to go after #root. */
  templates: string;
}

/** The renderer module's one export, renderRecorderPage. */
export type RenderRecorderPage = (input: RecorderPageInput) => RecorderPageParts;
