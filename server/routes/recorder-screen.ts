/**
 * Owns /r/:token's page as it is put together: the build's shell (dist/r.html) and, for a live
 * link, the recorder's first screen drawn into it by the build's renderer (dist/.server/recorder.mjs,
 * built from src/entry-recorder.tsx). Both are build artifacts read from the site's folder, each read
 * again only when the build changes it: the server runs no code of the page's sources.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PAGES } from '../../contract/paths.js';
import {
  RECORDER_RENDERER,
  RECORDER_SCREEN_MARKS,
  type RecorderPageInput,
  type RecorderPageParts as DrawnScreen,
  type RenderRecorderPage,
} from '../../contract/recorderPage.js';

export type { DrawnScreen };

/** The shell in its parts: before #root's content, the spinner, after it up to </body>, and the end. */
export interface Shell {
  head: string;
  spinner: string;
  body: string;
  end: string;
  /** Whether the build marked where a screen goes (contract/recorderPage.ts). */
  marked: boolean;
}

/** Reads `file` again only when its modification time changes; undefined while it is missing. */
function byBuild<T>(file: string, read: (mtimeMs: number) => Promise<T>): () => Promise<T | undefined> {
  let kept: { mtimeMs: number; value: Promise<T> } | undefined;
  return async () => {
    const info = await stat(file).catch(() => undefined);
    if (!info) return undefined;
    if (kept?.mtimeMs !== info.mtimeMs) kept = { mtimeMs: info.mtimeMs, value: read(info.mtimeMs) };
    return kept.value;
  };
}

function shellOf(html: string): Shell {
  const end = html.lastIndexOf('</body>') < 0 ? html.length : html.lastIndexOf('</body>');
  const start = html.indexOf(RECORDER_SCREEN_MARKS.start);
  const stop = html.indexOf(RECORDER_SCREEN_MARKS.end);
  // A shell without the marks (an older build) goes as it is: nothing is drawn into it.
  if (start < 0 || stop < start || stop > end) return { head: html.slice(0, end), spinner: '', body: '', end: html.slice(end), marked: false };
  return {
    marked: true,
    head: html.slice(0, start),
    spinner: html.slice(start + RECORDER_SCREEN_MARKS.start.length, stop),
    body: html.slice(stop + RECORDER_SCREEN_MARKS.end.length, end),
    end: html.slice(end),
  };
}

const escapeText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function recorderScreen(distDir: string) {
  const shell = byBuild(path.join(distDir, PAGES.recorder.file), async () => shellOf(await readFile(path.join(distDir, PAGES.recorder.file), 'utf8')));
  const renderer = byBuild(path.join(distDir, RECORDER_RENDERER), async (mtimeMs) => {
    // A new build is a new module: the query makes the import read it.
    const module = (await import(`${pathToFileURL(path.join(distDir, RECORDER_RENDERER)).href}?build=${mtimeMs}`)) as {
      renderRecorderPage?: RenderRecorderPage;
    };
    if (typeof module.renderRecorderPage !== 'function') throw new Error(`${RECORDER_RENDERER} has no renderRecorderPage`);
    return module.renderRecorderPage;
  });

  return {
    /** The shell, or undefined when the site is not built. */
    shell,
    /** The first screen drawn for this link; undefined when the build has no renderer. Throws what the renderer throws. */
    async draw(input: RecorderPageInput): Promise<DrawnScreen | undefined> {
      return (await renderer())?.(input);
    },
  };
}

/**
 * The page: the shell with `drawn` in place of its spinner (in its language, with its title) and
 * `extra` (the link's data) before </body>; without `drawn`, the shell as built.
 */
export function pageOf(shell: Shell, extra: string, drawn?: DrawnScreen): string {
  if (!drawn || !shell.marked) return `${shell.head}${shell.spinner}${shell.body}${extra}${shell.end}`;
  const lang = /^[a-z]{2}$/.test(drawn.lang) ? drawn.lang : 'en';
  const head = shell.head
    .replace(/<html lang="[a-z]+">/, `<html lang="${lang}">`)
    .replace(/<title>[^<]*<\/title>/, `<title>${escapeText(drawn.title)}</title>`);
  return `${head}${drawn.screen}${shell.body}${drawn.templates}${extra}${shell.end}`;
}
