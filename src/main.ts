/**
 * The script of the screens' shells (/r/:token, /s/:token, /home-screen): once the shell has
 * painted, it runs the screen's on-demand chunk (React's and the screen's, preloaded by the shell's
 * <head>; /r/'s are asked for here, once its first screen records without them: src/firstScreen).
 * Marketing pages are prerendered HTML and load no script file; every page registers the service
 * worker with an inline script (contract/registerWorker.ts). The recorder's link data is taken
 * from the page here, or, in the worker's shell, asked for beside its chunk, not after
 * it. Chromium's offer to install is kept from here on (src/installPrompt.ts), before any screen's
 * chunk has loaded, so it is not missed.
 */
import { HOME_SCREEN_PAGE, KEEPSAKE_PAGE, RECORDER_PAGE } from '../contract/paths.js';
import { showChunkError } from './chunkError';
import { SCREEN_FILES_ID } from './shell';
import { keepInstallPrompt } from './installPrompt';
import { loadChunk } from './lazyChunk';
import { prefetchLink } from './linkPrefetch';
import { preloadLanguage } from './i18n/languages';
import './styles/site.css';

/** `token`: the path's one parameter, '' for a screen without one. */
type Mount = (root: HTMLElement, token: string) => void;

const SCREENS: Array<{ path: RegExp; chunk: string; prefetch?: (token: string) => void; load: () => Promise<Mount> }> = [
  { path: RECORDER_PAGE, chunk: 'recorder', prefetch: prefetchLink, load: () => import('./recorderApp').then((m) => m.mountRecorder) },
  { path: KEEPSAKE_PAGE, chunk: 'keepsake', load: () => import('./keepsake/keepsakeApp').then((m) => m.mountKeepsake) },
  { path: HOME_SCREEN_PAGE, chunk: 'home-screen', load: () => import('./homeScreenApp').then((m) => m.mountHomeScreen) },
];

/**
 * Resolves once the browser has painted the prerendered shell: the next frame, then a task. When
 * everything is cached or the link is fast, the screen's JavaScript is ready before the first
 * frame and would run first, so a slow phone would show a blank page for as long as React takes
 * to start. A hidden page paints no frames; it goes on at once.
 */
function afterFirstPaint(): Promise<void> {
  if (document.visibilityState !== 'visible') return Promise.resolve();
  return new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
}

/**
 * Asks for the screen's files all together when the shell names them instead of preloading them
 * from its <head> (r.html, whose first screen records before they come: src/firstScreen); they run
 * later, in order (reactFirst).
 */
function preloadScreenFiles(): void {
  let files: unknown;
  try {
    files = JSON.parse(document.getElementById(SCREEN_FILES_ID)?.textContent ?? '[]');
  } catch {
    return;
  }
  if (!Array.isArray(files)) return;
  for (const href of files) {
    if (typeof href === 'string') document.head.append(Object.assign(document.createElement('link'), { rel: 'modulepreload', href, crossOrigin: '' }));
  }
}

/**
 * Runs React's chunk on its own, then yields before the screen's: two tasks the phone can answer
 * input between, instead of one long one (the files are already loading, in parallel). Every
 * screen is a React screen.
 */
const reactFirst =
  <T>(load: () => Promise<T>) =>
  (): Promise<T> =>
    import('react-dom/client').then(() => new Promise<void>((resolve) => setTimeout(resolve, 0))).then(load);

/** A token as the address bar spells it; a mangled escape is kept as typed (the API will say no). */
function decodeToken(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

keepInstallPrompt();

const root = document.getElementById('root')!;
const pathname = window.location.pathname;
const screen = SCREENS.find(({ path }) => path.test(pathname));
if (screen) {
  const token = decodeToken(screen.path.exec(pathname)![1] ?? '');
  screen.prefetch?.(token);
  // The screen's words in this phone's language (not English) travel beside its code; a screen the
  // server drew is taken over in the language it was drawn in (src/recorderApp.tsx).
  preloadLanguage(root.querySelector('main[data-screen]') ? document.documentElement.lang : undefined);
  // The chunk's files are on their way (modulepreload in the shell, or asked for here); this only waits to run them.
  preloadScreenFiles();
  afterFirstPaint()
    .then(() => loadChunk(screen.chunk, reactFirst(screen.load)))
    .then(
      (mount) => mount(root, token),
      (error: unknown) => {
        console.error(error);
        showChunkError(root);
      },
    );
}
