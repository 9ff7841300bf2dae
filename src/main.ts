/**
 * The script of the screens' shells (/r/:token, /s/:token). The shell paints from its HTML alone;
 * once that paint is on screen and its inline script has asked for the screen's files, this asks,
 * for the recorder, for the link's data beside them, then runs React's chunk and the screen's.
 * Marketing pages are prerendered HTML and load no script file; every page registers the service
 * worker with an inline script (src/shared/registerWorker.ts).
 */
import { showChunkError } from './chunkError';
import { loadChunk } from './lazyChunk';
import { prefetchLink } from './linkPrefetch';
import { preloadLanguage } from './recorder/i18n/languages';
import { SCREEN_PRELOADS_EVENT, SCREEN_PRELOADS_ID } from './shared/screenPreloads';
import './styles/site.css';

type Mount = (root: HTMLElement, token: string) => void;

const SCREENS: Array<{ path: RegExp; chunk: string; prefetch?: (token: string) => void; load: () => Promise<Mount> }> = [
  { path: /^\/r\/([^/]+)\/?$/, chunk: 'recorder', prefetch: prefetchLink, load: () => import('./recorderApp').then((m) => m.mountRecorder) },
  { path: /^\/s\/([^/]+)\/?$/, chunk: 'keepsake', load: () => import('./keepsake/keepsakeApp').then((m) => m.mountKeepsake) },
];

/** If the shell's inline script never ran, the screen loads anyway after this (its import asks for the files itself). */
const SHELL_SCRIPT_WAIT_MS = 3000;

/**
 * Resolves once the shell's inline script has seen the shell's first paint and started the
 * screen's downloads (src/shared/screenPreloads.ts), so the screen's code runs after that paint.
 * With the template already gone (the downloads have started) or never there (the dev server's
 * pages), it goes on at once.
 */
function screenPreloadsStarted(): Promise<void> {
  if (!document.getElementById(SCREEN_PRELOADS_ID)) return Promise.resolve();
  return new Promise((resolve) => {
    document.addEventListener(SCREEN_PRELOADS_EVENT, () => resolve(), { once: true });
    setTimeout(resolve, SHELL_SCRIPT_WAIT_MS);
  });
}

/**
 * Runs React's chunk on its own, then yields before the screen's: two tasks the phone can answer
 * input between, instead of one long one (the files are already loading, in parallel). Every
 * screen is a React screen.
 */
const reactFirst = <T>(load: () => Promise<T>) => (): Promise<T> =>
  import('react-dom/client')
    .then(() => new Promise<void>((resolve) => setTimeout(resolve, 0)))
    .then(load);

/** A token as the address bar spells it; a mangled escape is kept as typed (the API will say no). */
function decodeToken(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

const root = document.getElementById('root')!;
const pathname = window.location.pathname;
const screen = SCREENS.find(({ path }) => path.test(pathname));
if (screen) {
  const token = decodeToken(screen.path.exec(pathname)![1]!);
  screenPreloadsStarted()
    .then(() => {
      screen.prefetch?.(token);
      // The screen's words in this phone's language (not English) travel beside its code.
      preloadLanguage();
      return loadChunk(screen.chunk, reactFirst(screen.load));
    })
    .then(
      (mount) => mount(root, token),
      (error: unknown) => {
        console.error(error);
        showChunkError(root);
      },
    );
}
