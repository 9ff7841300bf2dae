/**
 * The script of the screens' shells (/r/:token, /s/:token): it fetches the screen (React and the
 * screen) as one on-demand chunk. Marketing pages are prerendered HTML and load no script file;
 * every page registers the service worker with an inline script (src/shared/registerWorker.ts).
 * The recorder's link data is asked for here, beside its chunk, not after it.
 */
import { showChunkError } from './chunkError';
import { loadChunk } from './lazyChunk';
import { prefetchLink } from './linkPrefetch';
import './styles/site.css';

type Mount = (root: HTMLElement, token: string) => void;

const SCREENS: Array<{ path: RegExp; chunk: string; prefetch?: (token: string) => void; load: () => Promise<Mount> }> = [
  { path: /^\/r\/([^/]+)\/?$/, chunk: 'recorder', prefetch: prefetchLink, load: () => import('./recorderApp').then((m) => m.mountRecorder) },
  { path: /^\/s\/([^/]+)\/?$/, chunk: 'keepsake', load: () => import('./keepsake/keepsakeApp').then((m) => m.mountKeepsake) },
];

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
  screen.prefetch?.(token);
  loadChunk(screen.chunk, screen.load).then(
    (mount) => mount(root, token),
    (error: unknown) => {
      console.error(error);
      showChunkError(root);
    },
  );
}
